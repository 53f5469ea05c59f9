"""The zoo's model definitions, one module per family; importing a module
registers its models with zoo_lib, in the order the manifest lists them."""
from . import keras_apps, transformers, rnn, control_flow, preprocessing, text, \
    image_ops, audio, precision, serving_tf1, tf1, misc

ALL_MODULES = (keras_apps, transformers, rnn, control_flow, preprocessing, text,
               image_ops, audio, precision, serving_tf1, tf1, misc)
