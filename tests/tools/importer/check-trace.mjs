// Loads a trace-event JSON file through Chrome DevTools' trace engine (the
// importer behind the Performance panel) and prints, as JSON, how many
// complete slices it placed on thread tracks and every slice it placed
// inside another: which slices nest is the importer's call, not ours.
import {analyzeTrace} from '@paulirish/trace_engine/analyze-trace.mjs';

const file = process.argv[2];
if (!file) {
  console.error('usage: node check-trace.mjs TRACE.json');
  process.exit(2);
}
const {parsedTrace} = await analyzeTrace(file);
let slices = 0;
const nested = [];
for (const [pid, proc] of parsedTrace.data.Renderer.processes) {
  for (const [tid, thread] of proc.threads) {
    const walk = (node, parent) => {
      slices++;
      if (parent) {
        nested.push({pid, tid, name: node.entry.name, ts: node.entry.ts, parent: parent.entry.name});
      }
      for (const child of node.children) walk(child, node);
    };
    for (const root of thread.tree?.roots ?? []) walk(root, null);
  }
}
console.log(JSON.stringify({slices, nested}));
