// The lookup op family: TensorFlow's table ops over LookupTable resources
// (lookup_table.h). TF2 resource ops (HashTableV2, InitializeTableV2,
// InitializeTableFromTextFileV2, LookupTableFindV2, ...) and their TF1
// ref-typed twins (HashTable, InitializeTable, LookupTableFind, ...).
//
// Handles: a V2 table op outputs a DT_RESOURCE scalar holding the table's
// resource name (VariableResourceName of its node: shared_name, else the node
// name); a TF1 op outputs a string vector [container, name] as TensorFlow
// does. Every table op accepts either form.
#pragma once

#include "ops/op_registry.h"

namespace tfhost::ops {

void RegisterLookupTableOps(OpRegistry& registry);

}  // namespace tfhost::ops
