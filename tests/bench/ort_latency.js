// ONNX Runtime's CPU latency for one model, for tests/bench/bench_cpu_vs_ort (a benchmark helper,
// never a dependency of opsched). Usage:
//   node ort_latency.js MODEL.onnx INPUTS.json THREADS REPEAT [OUTPUT_PREFIX]
// INPUTS.json lists the model's inputs in order: [{"name", "path", "dims", "type"}], each file raw
// little-endian data of that type ("float32" or "int64"). Prints one JSON line:
// {"median_ms":..., "min_ms":..., "load_ms":..., "outputs": [...]}. With OUTPUT_PREFIX, output i of
// the last timed run is written raw (float32) to OUTPUT_PREFIX_i.bin so the caller can check it
// against the reference. onnxruntime-node is found through NODE_PATH.
"use strict";
const fs = require("fs");
const ort = require("onnxruntime-node");

async function main() {
  const [model, inputsPath, threadsArg, repeatArg, outputPrefix] = process.argv.slice(2);
  if (!repeatArg) {
    console.error("usage: node ort_latency.js MODEL.onnx INPUTS.json THREADS REPEAT");
    process.exit(2);
  }
  const inputs = JSON.parse(fs.readFileSync(inputsPath, "utf8"));
  const threads = Number(threadsArg), repeat = Number(repeatArg);
  const t0 = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ["cpu"],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: "sequential",
    graphOptimizationLevel: "all",
  });
  const loadMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const feeds = {};
  inputs.forEach((input, i) => {
    const raw = fs.readFileSync(input.path);
    const bytes = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength);
    const data = input.type === "int64" ? new BigInt64Array(bytes) : new Float32Array(bytes);
    feeds[session.inputNames[i]] = new ort.Tensor(input.type, data, input.dims);
  });
  await session.run(feeds); // warm-up
  const times = [];
  let results = null;
  for (let i = 0; i < repeat; ++i) {
    const s = process.hrtime.bigint();
    results = await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - s) / 1e6);
  }
  const outputs = [];
  if (outputPrefix) {
    session.outputNames.forEach((name, i) => {
      const t = results[name];
      const path = `${outputPrefix}_${i}.bin`;
      fs.writeFileSync(path, Buffer.from(Float32Array.from(t.data, Number).buffer));
      outputs.push({ name, path, dims: t.dims });
    });
  }
  times.sort((a, b) => a - b);
  const median = times.length % 2 ? times[(times.length - 1) / 2]
                                  : (times[times.length / 2 - 1] + times[times.length / 2]) / 2;
  console.log(JSON.stringify({ median_ms: median, min_ms: times[0], load_ms: loadMs, outputs }));
}

main().catch((e) => {
  console.error("ort_latency: " + e.message);
  process.exit(1);
});
