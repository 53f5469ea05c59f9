// Where could a blocked-layout pass keep oneDNN's nChw8c/nChw16c between
// two convolutions? Only on an edge whose writer and reader both run on
// oneDNN: counts those edges of a TF.js graph model, from a
// `tfhost bench --profile --json` of it (which backend computed each node)
// and its model.json (the edges). A fused node is named after the last op
// it absorbed (BiasAdd, Relu, ...), so a convolution's input is found by
// walking back over such single-input ops to the node that ran.
//
//   node onednn_chains.mjs MODEL_DIR PROFILE_JSON
//
// Prints each oneDNN -> oneDNN edge, then one summary line.
import fs from 'node:fs';

const [modelDir, profileFile] = process.argv.slice(2);
if (!modelDir || !profileFile) {
  console.error('usage: node onednn_chains.mjs MODEL_DIR PROFILE_JSON');
  process.exit(2);
}
const graph = JSON.parse(fs.readFileSync(`${modelDir}/model.json`, 'utf8')).modelTopology.node;
const graphNode = new Map(graph.map((n) => [n.name, n]));
const ran = new Map(
  JSON.parse(fs.readFileSync(profileFile, 'utf8')).results[0].profile.nodes.map((n) => [n.name, n]));
const isConv = (op) => /Conv2D|Depthwise/.test(op);
const absorbed = new Set(['BiasAdd', 'Relu', 'Relu6', 'Add', 'AddV2', 'FusedBatchNorm', 'FusedBatchNormV3',
  'Elu', 'Sigmoid', 'Tanh', 'LeakyRelu', 'Identity', 'Mul', 'Conv2D', 'DepthwiseConv2dNative']);
const nodeName = (input) => input.replace(/^\^/, '').replace(/:\d+$/, '');

// The node that ran and wrote the tensor `input`, or null.
function writer(input) {
  let name = nodeName(input);
  for (let hops = 0; hops < 8; ++hops) {
    if (ran.has(name)) return ran.get(name);
    const n = graphNode.get(name);
    if (!n || !absorbed.has(n.op)) return null;
    name = nodeName(n.input[0]);
  }
  return null;
}

let convs = 0, onOneDnn = 0, edges = 0, pairs = 0;
for (const node of ran.values()) {
  if (!isConv(node.op)) continue;
  ++convs;
  if (node.backend === 'onednn') ++onOneDnn;
  // The convolution op inside the fused node, and what its data input is.
  let conv = graphNode.get(node.name);
  for (let hops = 0; conv && !isConv(conv.op) && hops < 6; ++hops) conv = graphNode.get(nodeName(conv.input[0]));
  if (!conv) continue;
  const from = writer(conv.input[0]);
  if (!from || !isConv(from.op)) continue;
  ++edges;
  if (from.backend === 'onednn' && node.backend === 'onednn') {
    ++pairs;
    console.log(`  ${from.name} -> ${node.name}`);
  }
}
console.log(`${modelDir.split('/').pop()}: ${convs} convolutions (${onOneDnn} on oneDNN), ` +
            `${edges} convolution -> convolution edges, ${pairs} with both ends on oneDNN`);
