// A shared library without the plugin entry points, for plugin_loader_test.
extern "C" int tfhost_something_else() { return 7; }
