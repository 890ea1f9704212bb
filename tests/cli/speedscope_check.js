#!/usr/bin/env node
// Validate a speedscope file against the schema speedscope's own npm package
// ships (dist/release/file-format-schema.json, draft-07) with ajv, check
// what the schema cannot say (frame indices in range, a weight a sample,
// endValue the weights' sum), and print what speedscope would show.
//
// usage: speedscope_check.js FILE SCHEMA threads|leaves
//   threads  each profile's name and its samples, "NAME COUNT"
//   leaves   each innermost frame's function and its samples over all
//            profiles, "NAME COUNT"
'use strict';
const fs = require('fs');
const Ajv = require('ajv');

const [file, schemaPath, what] = process.argv.slice(2);
const data = JSON.parse(fs.readFileSync(file, 'utf8'));
const schema = JSON.parse(fs.readFileSync(schemaPath, 'utf8'));
const validate = new Ajv({allErrors: true, strict: false}).compile(schema);

function fail(msg) {
  console.error('speedscope_check: ' + msg);
  process.exit(1);
}

if (!validate(data)) fail(JSON.stringify(validate.errors, null, 1));
const nframes = data.shared.frames.length;
const count = new Map();
const add = (k, n) => count.set(k, (count.get(k) || 0) + n);
for (const p of data.profiles) {
  if (p.type !== 'sampled') fail(`profile ${p.name} is ${p.type}`);
  if (p.samples.length !== p.weights.length) fail(`${p.name}: ${p.samples.length} samples, ${p.weights.length} weights`);
  const sum = p.weights.reduce((a, b) => a + b, 0);
  if (p.startValue !== 0 || p.endValue !== sum) fail(`${p.name}: values ${p.startValue}..${p.endValue}, weights ${sum}`);
  for (const s of p.samples) {
    if (!s.length) fail(`${p.name}: an empty stack`);
    for (const f of s) if (!Number.isInteger(f) || f < 0 || f >= nframes) fail(`${p.name}: frame ${f} of ${nframes}`);
    if (what === 'leaves') add(data.shared.frames[s[s.length - 1]].name, 1);
  }
  if (what === 'threads') add(p.name, p.samples.length);
}
for (const k of [...count.keys()].sort()) console.log(`${k} ${count.get(k)}`);
