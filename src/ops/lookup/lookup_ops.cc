// Kernels and schemas of the lookup op family (lookup_ops.h). Each kernel
// finds its table through the handle input and leaves the checking of keys
// and values to LookupTable, adding the node to its errors.
#include "ops/lookup/lookup_ops.h"

#include "ops/lookup/lookup_table.h"
#include "ops/lookup/text_file_table.h"
#include "ops/state/state_ops.h"

namespace tfhost::ops {
namespace {

using lookup::LookupTable;

Status WithNode(const KernelContext& ctx, const Status& status) {
  return status.WithContext(ir::NodeContext(ctx.node()));
}

// The resource name held by handle input `i`: a scalar (DT_RESOURCE), or
// TF1's [container, name] string vector.
StatusOr<std::string> TableName(const KernelContext& ctx, int i) {
  const Tensor& t = ctx.input(i);
  std::string name;
  if (t.valid() && IsStringLike(t.dtype()) && t.NumElements() == 1) {
    name = t.strings()[0];
  } else if (t.valid() && IsStringLike(t.dtype()) && t.rank() == 1 && t.NumElements() == 2) {
    name = t.strings()[1];
  } else {
    return ctx.Error("input " + std::to_string(i) + " must be a table handle (a resource scalar or a [container, " +
                     "name] string vector), got " +
                     (t.valid() ? DTypeShortName(t.dtype()) + t.shape().ToString() : std::string("nothing")));
  }
  if (name.empty()) return ctx.Error("input " + std::to_string(i) + " is an empty table handle");
  return name;
}

StatusOr<std::shared_ptr<LookupTable>> InputTable(const KernelContext& ctx, int i) {
  TFHOST_ASSIGN_OR_RETURN(std::string name, TableName(ctx, i));
  auto table = ctx.resources()->Lookup<LookupTable>(name);
  if (!table.ok()) {
    if (table.status().code() == StatusCode::kNotFound) {
      return FailedPrecondition(ir::NodeContext(ctx.node()) + ": table '" + name +
                                "' does not exist (the op that creates it has not run)");
    }
    return WithNode(ctx, table.status());
  }
  return *table;
}

// HashTableV2, MutableHashTableV2, MutableHashTableOfTensorsV2 and their TF1
// forms: find or create the table, output its handle.
Status CreateTableKernel(KernelContext& ctx, LookupTable::Kind kind, bool of_tensors, bool ref_handle) {
  TFHOST_ASSIGN_OR_RETURN(DType key_dtype, ctx.Attr<DType>("key_dtype"));
  TFHOST_ASSIGN_OR_RETURN(DType value_dtype, ctx.Attr<DType>("value_dtype"));
  Shape value_shape;
  if (of_tensors) {
    // TensorFlow's default is a scalar ({}); tfhost's schema can only spell
    // an unknown-rank default, which therefore means a scalar here.
    TFHOST_ASSIGN_OR_RETURN(ir::PartialShape shape,
                            ctx.AttrOr<ir::PartialShape>("value_shape", ir::PartialShape::Unknown()));
    if (shape.unknown_rank) {
      shape.unknown_rank = false;
      shape.dims.clear();
    }
    if (!shape.IsFullyDefined()) {
      return ctx.Error("value_shape must be fully defined, got " + shape.ToString());
    }
    value_shape = Shape(shape.dims);
  }
  auto created = LookupTable::Create(kind, key_dtype, value_dtype, value_shape);
  if (!created.ok()) return WithNode(ctx, created.status());
  const std::string name = VariableResourceName(ctx.node());
  auto table = ctx.resources()->LookupOrCreate<LookupTable>(name, [&] { return *created; });
  if (!table.ok()) return WithNode(ctx, table.status());
  const LookupTable& t = **table;
  if (t.kind() != kind || t.key_dtype() != key_dtype || t.value_dtype() != value_dtype ||
      t.value_shape() != value_shape) {
    return ctx.Error("table '" + name + "' already exists as a " + t.Description() + ", not a " +
                     (*created)->Description());
  }
  Tensor handle;
  if (ref_handle) {
    handle = Tensor(DType::kString, Shape({2}));
    handle.strings()[1] = name;
  } else {
    handle = Tensor(DType::kResource, Shape());
    handle.strings()[0] = name;
  }
  ctx.set_output(0, std::move(handle));
  return OkStatus();
}

Status InitializeTableKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto table, InputTable(ctx, 0));
  return WithNode(ctx, table->Initialize(ctx.input(1), ctx.input(2),
                                         [](int64_t i) { return "keys[" + std::to_string(i) + "]"; }));
}

Status InitializeTableFromTextFileKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto table, InputTable(ctx, 0));
  const Tensor& filename = ctx.input(1);
  if (!filename.valid() || filename.dtype() != DType::kString || filename.NumElements() != 1) {
    return ctx.Error("filename must be a string scalar, got " +
                     (filename.valid() ? DTypeShortName(filename.dtype()) + filename.shape().ToString()
                                       : std::string("nothing")));
  }
  lookup::TextFileTableSpec spec;
  spec.filename = filename.strings()[0];
  TFHOST_ASSIGN_OR_RETURN(spec.key_index, ctx.Attr<int64_t>("key_index"));
  TFHOST_ASSIGN_OR_RETURN(spec.value_index, ctx.Attr<int64_t>("value_index"));
  TFHOST_ASSIGN_OR_RETURN(spec.vocab_size, ctx.AttrOr<int64_t>("vocab_size", -1));
  TFHOST_ASSIGN_OR_RETURN(spec.offset, ctx.AttrOr<int64_t>("offset", 0));
  TFHOST_ASSIGN_OR_RETURN(std::string delimiter, ctx.AttrOr<std::string>("delimiter", "\t"));
  if (delimiter.size() != 1) {
    return ctx.Error("delimiter must be exactly one character, got \"" + delimiter + "\"");
  }
  spec.delimiter = delimiter[0];
  spec.key_dtype = table->key_dtype();
  spec.value_dtype = table->value_dtype();
  if (spec.filename.empty()) return ctx.Error("filename is empty");
  if (table->kind() != LookupTable::Kind::kHashTable || !table->value_shape().IsScalar()) {
    return ctx.Error("a " + table->Description() + " cannot be initialized from a text file");
  }
  // The file is read even when the table is initialized, so that a missing
  // vocabulary is reported every time, as TensorFlow does.
  auto entries = lookup::ReadTextFileTable(spec);
  if (!entries.ok()) return WithNode(ctx, entries.status());
  Status st = table->Initialize(entries->first, entries->second, [&](int64_t i) {
    return spec.filename + " line " + std::to_string(i + 1);
  });
  // Like TensorFlow, a table already filled (from this file or an earlier
  // version of it) is left as it is.
  if (st.code() == StatusCode::kFailedPrecondition && table->initialized()) return OkStatus();
  return WithNode(ctx, st);
}

Status LookupTableFindKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto table, InputTable(ctx, 0));
  auto values = table->Find(ctx.input(1), ctx.input(2));
  if (!values.ok()) return WithNode(ctx, values.status());
  ctx.set_output(0, std::move(*values));
  return OkStatus();
}

Status LookupTableInsertKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto table, InputTable(ctx, 0));
  return WithNode(ctx, table->Insert(ctx.input(1), ctx.input(2)));
}

Status LookupTableRemoveKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto table, InputTable(ctx, 0));
  return WithNode(ctx, table->Remove(ctx.input(1)));
}

Status LookupTableImportKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto table, InputTable(ctx, 0));
  return WithNode(ctx, table->Import(ctx.input(1), ctx.input(2)));
}

Status LookupTableSizeKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto table, InputTable(ctx, 0));
  ctx.set_output(0, Tensor::Scalar<int64_t>(table->Size()));
  return OkStatus();
}

Status LookupTableExportKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto table, InputTable(ctx, 0));
  TFHOST_ASSIGN_OR_RETURN(DType tkeys, ctx.Attr<DType>("Tkeys"));
  TFHOST_ASSIGN_OR_RETURN(DType tvalues, ctx.Attr<DType>("Tvalues"));
  if (tkeys != table->key_dtype() || tvalues != table->value_dtype()) {
    return ctx.Error("Tkeys/Tvalues are " + DTypeShortName(tkeys) + "/" + DTypeShortName(tvalues) + " but the table is a " +
                     table->Description());
  }
  auto [keys, values] = table->Export();
  ctx.set_output(0, std::move(keys));
  ctx.set_output(1, std::move(values));
  return OkStatus();
}

// TF2 ops take `table_handle: resource`; their TF1 twins `Ref(string)`.
const char* HandleArg(bool v2) { return v2 ? "table_handle: resource" : "table_handle: Ref(string)"; }

ir::OpDefBuilder TableSchema(const std::string& op, bool v2, bool of_tensors) {
  ir::OpDefBuilder b(op);
  b.Output(HandleArg(v2))
      .Attr("container: string = ''")
      .Attr("shared_name: string = ''")
      .Attr("use_node_name_sharing: bool = false")
      .Attr("key_dtype: type")
      .Attr("value_dtype: type");
  if (of_tensors) b.Attr("value_shape: shape = unknown");  // TF: {} (see CreateTableKernel)
  b.SetIsStateful();
  return b;
}

// TensorFlow marks the V2 ops stateful (they take a resource); the TF1 forms
// are not.
ir::OpDefBuilder Stateful(ir::OpDefBuilder b, bool v2) {
  if (v2) b.SetIsStateful();
  return b;
}

void RegisterForms(OpRegistry& registry, bool v2) {
  const std::string suffix = v2 ? "V2" : "";
  using Kind = LookupTable::Kind;
  registry.Register(TableSchema("HashTable" + suffix, v2, false), [v2](KernelContext& ctx) {
    return CreateTableKernel(ctx, Kind::kHashTable, false, !v2);
  });
  registry.Register(TableSchema("MutableHashTable" + suffix, v2, false), [v2](KernelContext& ctx) {
    return CreateTableKernel(ctx, Kind::kMutable, false, !v2);
  });
  registry.Register(TableSchema("MutableHashTableOfTensors" + suffix, v2, true), [v2](KernelContext& ctx) {
    return CreateTableKernel(ctx, Kind::kMutable, true, !v2);
  });
  registry.Register(Stateful(ir::OpDefBuilder("InitializeTable" + suffix)
                                 .Input(HandleArg(v2))
                                 .Input("keys: Tkey")
                                 .Input("values: Tval")
                                 .Attr("Tkey: type")
                                 .Attr("Tval: type"),
                             v2),
                    InitializeTableKernel);
  registry.Register(Stateful(ir::OpDefBuilder("InitializeTableFromTextFile" + suffix)
                                 .Input(HandleArg(v2))
                                 .Input("filename: string")
                                 .Attr("key_index: int >= -2")
                                 .Attr("value_index: int >= -2")
                                 .Attr("vocab_size: int >= -1 = -1")
                                 .Attr("delimiter: string = '\\t'")
                                 .Attr("offset: int = 0"),
                             v2),
                    InitializeTableFromTextFileKernel);
  registry.Register(Stateful(ir::OpDefBuilder("LookupTableFind" + suffix)
                                 .Input(HandleArg(v2))
                                 .Input("keys: Tin")
                                 .Input("default_value: Tout")
                                 .Output("values: Tout")
                                 .Attr("Tin: type")
                                 .Attr("Tout: type"),
                             v2),
                    LookupTableFindKernel);
  registry.Register(Stateful(ir::OpDefBuilder("LookupTableInsert" + suffix)
                                 .Input(HandleArg(v2))
                                 .Input("keys: Tin")
                                 .Input("values: Tout")
                                 .Attr("Tin: type")
                                 .Attr("Tout: type"),
                             v2),
                    LookupTableInsertKernel);
  registry.Register(Stateful(ir::OpDefBuilder("LookupTableImport" + suffix)
                                 .Input(HandleArg(v2))
                                 .Input("keys: Tin")
                                 .Input("values: Tout")
                                 .Attr("Tin: type")
                                 .Attr("Tout: type"),
                             v2),
                    LookupTableImportKernel);
  registry.Register(Stateful(ir::OpDefBuilder("LookupTableSize" + suffix)
                                 .Input(HandleArg(v2))
                                 .Output("size: int64"),
                             v2),
                    LookupTableSizeKernel);
  registry.Register(Stateful(ir::OpDefBuilder("LookupTableExport" + suffix)
                                 .Input(HandleArg(v2))
                                 .Output("keys: Tkeys")
                                 .Output("values: Tvalues")
                                 .Attr("Tkeys: type")
                                 .Attr("Tvalues: type"),
                             v2),
                    LookupTableExportKernel);
}

}  // namespace

void RegisterLookupTableOps(OpRegistry& registry) {
  RegisterForms(registry, /*v2=*/true);
  RegisterForms(registry, /*v2=*/false);
  // TensorFlow has no TF1 (ref) form of LookupTableRemove.
  registry.Register(ir::OpDefBuilder("LookupTableRemoveV2")
                        .Input("table_handle: resource")
                        .Input("keys: Tin")
                        .Attr("Tin: type")
                        .SetIsStateful(),
                    LookupTableRemoveKernel);
}

}  // namespace tfhost::ops
