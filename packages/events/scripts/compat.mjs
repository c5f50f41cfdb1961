// The compatibility check of the topics' JSON Schemas against the released ones (scripts/contract-check.sh):
//   node packages/events/scripts/compat.mjs <released schemas dir> <current schemas dir>
// Prints one line per topic and one per break; exits 1 when any topic breaks, 2 on a usage or input error.
//
// A topic's schema (packages/events/schemas/<topic>.json) is what its producers publish: zod's output form,
// closed (`additionalProperties: false`). Its consumers accept the same schema opened: parseEvent ignores (strips)
// properties it doesn't know. Producers and consumers of one topic are released by different teams, in any order,
// and a topic keeps messages after their producer moved on, so a change must hold both ways:
//   forward:  every message a new producer may send is accepted by the released consumers
//             (the new schema, closed, is a subset of the released one, opened);
//   backward: every message a released producer sent is accepted by the new consumers
//             (the released schema, closed, is a subset of the new one, opened).
// So adding an optional property is compatible; removing a required one, adding a required one, changing a type,
// adding or removing an enum value, and narrowing or widening a constraint are not. One exception, declared in the
// schema: an enum marked `x-flowboard-open-enum` (the event types of flowboard.resource-changed.v1) promises that
// every consumer skips a message with a value it doesn't know, so consumers accept any string there and adding a
// value is compatible once the marker is released (removing one still breaks). The subset questions are
// answered by jsoncompat (JSON Schema 2020-12, semantic: it compares the sets of values the schemas accept); this
// file only frames them and names which property broke.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const jsoncompatDir = path.dirname(require.resolve('jsoncompat/package.json'));
const { default: init, check_compat: checkCompat } = await import(
  path.join(jsoncompatDir, 'jsoncompat_wasm.js')
);
await init({ module_or_path: readFileSync(path.join(jsoncompatDir, 'jsoncompat_wasm_bg.wasm')) });

const FORWARD = 'the released consumers would refuse what new producers may send';
const BACKWARD = 'new consumers would refuse what released producers sent (and what is still on the topic)';

/** Marks an enum whose consumers skip the messages with values they don't know (packages/events, `openEnum`). */
export const OPEN_ENUM = 'x-flowboard-open-enum';

/**
 * The schema as consumers read it: every `additionalProperties: false` dropped (unknown properties are ignored), and
 * an open enum (OPEN_ENUM) any string (a message with an unknown value is read, then skipped).
 */
export function opened(schema) {
  if (Array.isArray(schema)) return schema.map(opened);
  if (schema === null || typeof schema !== 'object') return schema;
  if (schema[OPEN_ENUM] === true && Array.isArray(schema.enum)) return { type: 'string' };
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'additionalProperties' && value === false) continue;
    out[key] = opened(value);
  }
  return out;
}

/** Annotations say nothing about which values are valid (and jsoncompat refuses some, e.g. `$id`): dropped. */
const ANNOTATIONS = new Set([
  '$schema',
  '$id',
  '$comment',
  'title',
  'description',
  'examples',
  'deprecated',
  OPEN_ENUM, // what consumers promise, read by opened(); not a constraint on the values
]);
const BY_NAME = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']); // names, not keywords
function withoutAnnotations(schema) {
  if (Array.isArray(schema)) return schema.map(withoutAnnotations);
  if (schema === null || typeof schema !== 'object') return schema;
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key)) continue;
    if (key === 'const' || key === 'enum' || key === 'default') out[key] = value;
    else if (BY_NAME.has(key) && value && typeof value === 'object')
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, withoutAnnotations(s)]));
    else out[key] = withoutAnnotations(value);
  }
  return out;
}
const standalone = (schema) => ({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  ...withoutAnnotations(schema),
});
/** Is every value `narrow` accepts also accepted by `wide`? */
const subset = (narrow, wide) =>
  checkCompat(JSON.stringify(standalone(wide)), JSON.stringify(standalone(narrow)), 'serializer');

const isObjectSchema = (s) => s && typeof s === 'object' && s.properties && typeof s.properties === 'object';
const show = (s) => {
  const { description: _d, title: _t, ...rest } = s ?? {};
  const text = JSON.stringify(rest);
  return text.length > 140 ? `${text.slice(0, 137)}...` : text;
};

/**
 * Names the properties that make `released` → `current` incompatible. `forwardOk`/`backwardOk` are the verdicts
 * for the whole schemas; each break found says which way it breaks.
 */
function explain(released, current, where, breaks) {
  if (isObjectSchema(released) && isObjectSchema(current)) {
    const requiredBefore = new Set(released.required ?? []);
    const requiredNow = new Set(current.required ?? []);
    const names = [...new Set([...Object.keys(released.properties), ...Object.keys(current.properties)])];
    const before = breaks.length;
    for (const name of names) {
      const at = where ? `${where}.${name}` : name;
      const old = released.properties[name];
      const now = current.properties[name];
      if (now === undefined) {
        if (requiredBefore.has(name)) breaks.push(`${at}: removed (it was required): ${FORWARD}`);
        continue;
      }
      if (old === undefined) {
        if (requiredNow.has(name)) breaks.push(`${at}: added as required: ${BACKWARD}`);
        continue;
      }
      if (requiredBefore.has(name) && !requiredNow.has(name))
        breaks.push(`${at}: no longer required: ${FORWARD}`);
      if (!requiredBefore.has(name) && requiredNow.has(name)) breaks.push(`${at}: now required: ${BACKWARD}`);
      explainValue(old, now, at, breaks);
    }
    if (breaks.length > before) return;
  }
  explainValue(released, current, where, breaks, true);
}

const same = (a, b) => JSON.stringify(withoutAnnotations(a)) === JSON.stringify(withoutAnnotations(b));

function explainValue(old, now, at, breaks, whole = false) {
  if (same(old, now)) return;
  const forward = subset(now, opened(old));
  const backward = subset(old, opened(now));
  if (forward && backward) return;
  if (!whole && isObjectSchema(old) && isObjectSchema(now)) {
    const before = breaks.length;
    explain(old, now, at, breaks);
    if (breaks.length > before) return;
  }
  const label = at || '(the message)';
  if (Array.isArray(old?.enum) && Array.isArray(now?.enum)) {
    const added = now.enum.filter((v) => !old.enum.includes(v));
    const removed = old.enum.filter((v) => !now.enum.includes(v));
    if (added.length) breaks.push(`${label}: enum values added ${JSON.stringify(added)}: ${FORWARD}`);
    if (removed.length) breaks.push(`${label}: enum values removed ${JSON.stringify(removed)}: ${BACKWARD}`);
    if (added.length || removed.length) return;
  }
  const why = [!forward && FORWARD, !backward && BACKWARD].filter(Boolean).join('; and ');
  breaks.push(`${label}: changed from ${show(old)} to ${show(now)}: ${why}`);
}

/**
 * Values removed from an open enum: its consumers read them as unknown and skip them, so what released producers
 * still send of that value would be dropped unseen. The subset check cannot see it (an open enum reads as any string).
 */
function openEnumRemovals(released, current, where, breaks) {
  if (!released || !current || typeof released !== 'object' || typeof current !== 'object') return;
  if (released[OPEN_ENUM] === true && Array.isArray(released.enum) && Array.isArray(current.enum)) {
    const removed = released.enum.filter((v) => !current.enum.includes(v));
    if (removed.length)
      breaks.push(
        `${where || '(the message)'}: enum values removed ${JSON.stringify(removed)}: ${BACKWARD} (an open enum's consumers would skip them)`,
      );
  }
  if (isObjectSchema(released) && isObjectSchema(current))
    for (const [name, schema] of Object.entries(released.properties))
      openEnumRemovals(schema, current.properties[name], where ? `${where}.${name}` : name, breaks);
}

/** The breaks between a topic's released schema and its current one (empty: compatible). */
export function topicBreaks(released, current) {
  // Unchanged but for annotations (the usual case): compatible, without asking jsoncompat (0.5-1 s a schema).
  if (same(released, current)) return [];
  const removals = [];
  openEnumRemovals(released, current, '', removals);
  if (removals.length) return removals;
  const forward = subset(current, opened(released));
  const backward = subset(released, opened(current));
  if (forward && backward) return [];
  const breaks = [];
  explain(released, current, '', breaks);
  if (breaks.length === 0) {
    // jsoncompat says incompatible but no property could be named: report the whole message.
    const why = [!forward && FORWARD, !backward && BACKWARD].filter(Boolean).join('; and ');
    breaks.push(`(the message): changed incompatibly: ${why}`);
  }
  return breaks;
}

const topicsIn = (dir) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();

/** Compares every released topic with the current one; returns { lines, broken }. */
export function compareDirs(releasedDir, currentDir) {
  const lines = [];
  let broken = 0;
  const current = new Set(topicsIn(currentDir));
  for (const topic of topicsIn(releasedDir)) {
    if (!current.has(topic)) {
      broken++;
      lines.push(
        `BREAK ${topic}: the topic's schema is gone: its consumers would wait for events nobody sends`,
      );
      continue;
    }
    const read = (dir) => JSON.parse(readFileSync(path.join(dir, `${topic}.json`), 'utf8'));
    const breaks = topicBreaks(read(releasedDir), read(currentDir));
    if (breaks.length === 0) lines.push(`ok    ${topic}`);
    for (const b of breaks) lines.push(`BREAK ${topic}: ${b}`);
    if (breaks.length) broken++;
  }
  const released = new Set(topicsIn(releasedDir));
  for (const topic of current) if (!released.has(topic)) lines.push(`new   ${topic} (not released yet)`);
  return { lines, broken };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [releasedDir, currentDir] = process.argv.slice(2);
  if (!releasedDir || !currentDir || !existsSync(releasedDir) || !existsSync(currentDir)) {
    console.error('usage: compat.mjs <released schemas dir> <current schemas dir> (both must exist)');
    process.exit(2);
  }
  const { lines, broken } = compareDirs(releasedDir, currentDir);
  for (const line of lines) console.log(line);
  if (broken) {
    console.log(`${broken} topic(s) changed incompatibly (rules: docs/design.md "Contracts between teams")`);
    process.exit(1);
  }
}
