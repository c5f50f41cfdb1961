#!/usr/bin/env node
// The half of scripts/rules-check.sh that reads code and queries (the shell half builds promtool and Helm and runs
// promtool). Commands:
//
//   extract <rendered.yaml> <rules.yaml>   the PrometheusRule's spec out of a `helm template` rendering, as a plain
//                                          Prometheus rule file (what promtool reads)
//   queries --rules <rules.yaml> --dashboard <dashboard.json> --runbook <operations.md> --promql-out <file>
//                                          every query of the rules and the dashboard names only metrics the services
//                                          define (or the rules record), with labels those metrics have; every alert
//                                          has a severity, a summary, a description and a runbook_url whose section
//                                          exists in the runbook; the dashboard's queries go to --promql-out as
//                                          recording rules (Grafana's variables replaced), for promtool to parse
//   metrics                                the metrics the services define, as found in their code
//
// The metrics the services define are read from their sources (packages/*/src, services/*/src, tests aside): each
// `counter(`/`gauge(`/`histogram(` instrument's `name` and `labelNames` (and `gaugesOfOneRead`'s), the `total`/`seconds` pairs of
// requestInstruments, and name tables such as observePool's; prom-client's default metrics (process_*, nodejs_*)
// from prom-client itself. Every full `flowboard_*` name in those sources must be understood so, or this fails: a
// new way of defining metrics must be taught here rather than be silently missed.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(REPO, 'packages/service-kit/package.json'));

/** Labels the scrape adds (Prometheus Operator's ServiceMonitor, or a kubernetes-pods scrape config). */
const TARGET_LABELS = new Set([
  'namespace',
  'pod',
  'service',
  'exported_service',
  'job',
  'instance',
  'container',
  'endpoint',
]);
/** Series Prometheus makes itself. */
const PROMETHEUS_SERIES = new Map([['up', new Set()]]);

function sourceFiles() {
  const files = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && e.name !== 'dist' && e.name !== 'testing') walk(p);
      } else if (
        /\.ts$/.test(e.name) &&
        !/\.(test|int\.test|spec)\.ts$/.test(e.name) &&
        !e.name.endsWith('.d.ts')
      ) {
        files.push(p);
      }
    }
  };
  for (const top of ['packages', 'services']) {
    for (const e of readdirSync(path.join(REPO, top), { withFileTypes: true })) {
      const src = path.join(REPO, top, e.name, 'src');
      if (e.isDirectory() && readdirSync(path.join(REPO, top, e.name)).includes('src')) walk(src);
    }
  }
  return files;
}

const stringList = (text) => [...text.matchAll(/['"`]([A-Za-z_][\w]*)['"`]/g)].map((m) => m[1]);

/**
 * name → { type: counter|gauge|histogram, labels: Set, where } for every metric the services define, plus
 * `problems`: full metric names in the sources this reader could not place.
 */
export function definedMetrics() {
  const metrics = new Map();
  const problems = [];
  const add = (name, type, labels, where) => {
    const known = metrics.get(name);
    if (known && known.type !== type)
      problems.push(`${name}: defined as ${known.type} (${known.where}) and ${type} (${where})`);
    metrics.set(name, { type, labels: new Set(labels), where });
  };
  for (const file of sourceFiles()) {
    const text = readFileSync(file, 'utf8');
    const rel = path.relative(REPO, file);
    const placed = new Set();
    // counter(registry, { name: 'x', ..., labelNames: [...] }) and gauge/histogram alike.
    for (const m of text.matchAll(/\b(counter|gauge|histogram)\(\s*[\w.]+,\s*\{/g)) {
      const body = text.slice(m.index + m[0].length, m.index + m[0].length + 1200);
      const name =
        /^\s*name:\s*'(flowboard_\w+)'/m.exec(body) ??
        /\bname:\s*'(flowboard_\w+)'/.exec(body.split(/\n\s*\}\)/)[0]);
      if (!name) continue;
      const own = body.split(/\n\s*\}\)/)[0];
      const labels = /labelNames:\s*\[([^\]]*)\]/.exec(own);
      add(name[1], m[1], labels ? stringList(labels[1]) : [], rel);
      placed.add(name[1]);
    }
    // requestInstruments(registry, { total: 'x_total', seconds: 'x_seconds', ... }, [labels])
    for (const m of text.matchAll(/requestInstruments\(\s*[\w.]+,\s*\{([^}]*)\},\s*\[([^\]]*)\]/g)) {
      const total = /total:\s*'(flowboard_\w+)'/.exec(m[1]);
      const seconds = /seconds:\s*'(flowboard_\w+)'/.exec(m[1]);
      const labels = stringList(m[2]);
      if (total) {
        add(total[1], 'counter', labels, rel);
        placed.add(total[1]);
      }
      if (seconds) {
        add(seconds[1], 'histogram', labels, rel);
        placed.add(seconds[1]);
      }
    }
    // Name tables made into gauges by a loop: observePool's [['flowboard_pg_pool_size', 'help', read], ...].
    for (const m of text.matchAll(
      /const read: Array<\[[^\]]*\]> = \[([\s\S]*?)\n\s*\];\s*for \([^)]*\)\s*gauge\(/g,
    )) {
      for (const n of m[1].matchAll(/\[\s*'(flowboard_\w+)'/g)) {
        add(n[1], 'gauge', [], rel);
        placed.add(n[1]);
      }
    }
    // gaugesOfOneRead(registry, { ..., gauges: [{ name: 'x', ... }, ...] }): gauges without labels.
    for (const m of text.matchAll(/\bgaugesOfOneRead\(\s*[\w.]+,\s*\{([\s\S]*?)\n\s*\}\);/g)) {
      for (const n of m[1].matchAll(/\bname:\s*'(flowboard_\w+)'/g)) {
        add(n[1], 'gauge', [], rel);
        placed.add(n[1]);
      }
    }
    // Any other full name in code (not in a comment) is one this reader does not understand.
    const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    for (const m of code.matchAll(/['"`](flowboard_[a-z0-9_]+)['"`]/g)) {
      if (!placed.has(m[1]) && !metrics.has(m[1]))
        problems.push(`${rel}: cannot tell how ${m[1]} is defined`);
    }
  }
  // prom-client's default metrics, as prom-client itself registers them.
  const client = require('prom-client');
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  for (const m of registry.getMetricsAsArray()) {
    const type = String(m.type ?? m.constructor?.name ?? 'gauge').toLowerCase();
    add(
      m.name,
      type === 'counter' || type === 'histogram' ? type : 'gauge',
      m.labelNames ?? [],
      'prom-client default metrics',
    );
  }
  return { metrics, problems };
}

/** The series names a metric makes: a histogram's _bucket (with `le`), _sum and _count. */
function seriesNames(metrics, recorded) {
  const series = new Map(PROMETHEUS_SERIES);
  for (const [name, m] of metrics) {
    if (m.type === 'histogram') {
      series.set(`${name}_bucket`, new Set([...m.labels, 'le']));
      series.set(`${name}_sum`, m.labels);
      series.set(`${name}_count`, m.labels);
    } else series.set(name, m.labels);
  }
  for (const [name, labels] of recorded) series.set(name, labels);
  return series;
}

const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'offset',
  'bool',
  'inf',
  'nan',
  'start',
  'end',
]);

/**
 * The vector selectors of a PromQL expression: [{ name, labels: [label names in its matchers] }]. A tokenizer, not a
 * parser: promtool parses every expression too (check rules), so this sees only valid PromQL.
 */
export function selectors(expr) {
  const found = [];
  let rest = expr;
  // label_values(<selector>, label) of Grafana's variables
  rest = rest.replace(/label_values\(\s*([^,()]+?)\s*,\s*(\w+)\s*\)/g, (_, sel, label) => {
    const inner = selectors(sel);
    for (const s of inner) s.labels.push(label);
    found.push(...inner);
    return ' ';
  });
  // name{matchers} and {matchers}: the label names of the matchers, the values (strings) dropped.
  const str = String.raw`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\x60[^\x60]*\x60`;
  const matcher = new RegExp(String.raw`([A-Za-z_][\w]*)\s*(?:=~|!~|!=|=)\s*(?:${str})`, 'g');
  rest = rest.replace(
    new RegExp(String.raw`([A-Za-z_:][\w:]*)?\s*\{((?:${str}|[^}"'\x60])*)\}`, 'g'),
    (_, name, body) => {
      const labels = [...body.matchAll(matcher)].map((m) => m[1]);
      const byName = labels.indexOf('__name__');
      if (name && !KEYWORDS.has(name)) found.push({ name, labels });
      else if (byName >= 0) {
        const value = /__name__\s*=\s*"([^"]*)"/.exec(body);
        found.push({ name: value ? value[1] : '__name__', labels: labels.filter((l) => l !== '__name__') });
      }
      return ' ';
    },
  );
  rest = rest
    .replace(new RegExp(str, 'g'), ' ') // label_replace's arguments and the like
    .replace(/\[[^\]]*\]/g, ' ') // ranges and subqueries
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ') // label lists
    .replace(/\boffset\s+-?\S+/g, ' ')
    .replace(/(^|[^\w:.$])\d+(\.\d+)?(e[+-]?\d+)?/gi, '$1 ') // numbers
    .replace(/\$\w+/g, ' '); // a Grafana variable standing as a value
  for (const m of rest.matchAll(/([A-Za-z_:][\w:]*)(\s*\()?/g)) {
    if (m[2] || KEYWORDS.has(m[1].toLowerCase())) continue; // functions, aggregations, keywords
    found.push({ name: m[1], labels: [] });
  }
  return found;
}

/** GitHub's anchor of a Markdown heading. */
const slug = (heading) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');

function arg(args, name) {
  const i = args.indexOf(name);
  if (i < 0 || !args[i + 1]) throw new Error(`missing ${name} <value>`);
  return args[i + 1];
}

function extract([rendered, out]) {
  const docs = YAML.parseAllDocuments(readFileSync(rendered, 'utf8'))
    .map((d) => d.toJS())
    .filter(Boolean);
  const rules = docs.filter((d) => d.kind === 'PrometheusRule');
  if (rules.length !== 1) throw new Error(`${rendered}: ${rules.length} PrometheusRule objects, expected 1`);
  writeFileSync(out, YAML.stringify(rules[0].spec, { lineWidth: 0 }));
  const n = rules[0].spec.groups.flatMap((g) => g.rules);
  console.log(
    `${rendered}: ${n.filter((r) => r.alert).length} alerts, ${n.filter((r) => r.record).length} recording rules`,
  );
}

function queries(args) {
  const rulesFile = arg(args, '--rules');
  const dashboardFile = arg(args, '--dashboard');
  const runbookFile = arg(args, '--runbook');
  const promqlOut = arg(args, '--promql-out');
  const errors = [];
  const { metrics, problems } = definedMetrics();
  errors.push(...problems);

  const groups = YAML.parse(readFileSync(rulesFile, 'utf8')).groups;
  const rules = groups.flatMap((g) => g.rules);
  // A recorded series has the labels its expression keeps: the `by` of its outermost aggregation, when it has one.
  const recorded = new Map(
    rules
      .filter((r) => r.record)
      .map((r) => {
        const by = /^\s*(?:1\s*-\s*\(\s*)?\w+\s+by\s*\(([^)]*)\)/.exec(r.expr);
        return [r.record, new Set(by ? by[1].split(',').map((l) => l.trim()) : [])];
      }),
  );
  const series = seriesNames(metrics, recorded);

  const checkExpr = (expr, where) => {
    for (const s of selectors(expr)) {
      const labels = series.get(s.name);
      if (!labels) {
        const near = [...series.keys()].filter(
          (n) => n.split('_').slice(0, 3).join('_') === s.name.split('_').slice(0, 3).join('_'),
        );
        errors.push(
          `${where}: metric ${s.name} is defined by no service${near.length ? ` (defined: ${near.join(', ')})` : ''}`,
        );
        continue;
      }
      for (const l of s.labels) {
        if (!labels.has(l) && !TARGET_LABELS.has(l))
          errors.push(
            `${where}: ${s.name} has no label "${l}" (its labels: ${[...labels].join(', ') || 'none'}; the scrape's: ${[...TARGET_LABELS].join(', ')})`,
          );
      }
    }
  };

  const runbook = readFileSync(runbookFile, 'utf8');
  const anchors = new Set([...runbook.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => slug(m[1])));
  let alerts = 0;
  for (const r of rules) {
    const where = `${path.basename(rulesFile)}: ${r.alert ? `alert ${r.alert}` : `record ${r.record}`}`;
    checkExpr(r.expr, where);
    if (!r.alert) continue;
    alerts++;
    if (!['critical', 'warning', 'info'].includes(r.labels?.severity))
      errors.push(`${where}: severity must be critical, warning or info`);
    for (const a of ['summary', 'description', 'runbook_url'])
      if (!r.annotations?.[a]) errors.push(`${where}: no ${a} annotation`);
    const anchor = /#([\w-]+)$/.exec(r.annotations?.runbook_url ?? '');
    if (!anchor)
      errors.push(`${where}: runbook_url ${r.annotations?.runbook_url} names no section (#anchor)`);
    else if (!anchors.has(anchor[1]))
      errors.push(`${where}: runbook_url's section #${anchor[1]} is no heading of ${runbookFile}`);
  }

  const dashboard = JSON.parse(readFileSync(dashboardFile, 'utf8'));
  const panels = (dashboard.panels ?? []).flatMap((p) => [p, ...(p.panels ?? [])]);
  const targets = panels.flatMap((p) =>
    (p.targets ?? []).map((t) => ({
      where: `panel "${p.title}" ${t.refId}`,
      // promtool names the rule that does not parse: the panel's id and the query's refId
      record: `dashboard:panel_${p.id}_${t.refId}`,
      expr: t.expr,
    })),
  );
  for (const v of dashboard.templating?.list ?? []) {
    const q = typeof v.query === 'string' ? v.query : v.query?.query;
    if (v.type === 'query' && q) targets.push({ where: `variable $${v.name}`, expr: q });
  }
  const ids = panels.map((p) => p.id);
  if (new Set(ids).size !== ids.length) errors.push(`${dashboardFile}: panel ids are not unique`);
  const variables = new Set((dashboard.templating?.list ?? []).map((v) => v.name));
  const dashboardRules = [];
  for (const t of targets) {
    if (!t.expr) {
      errors.push(`${dashboardFile}: ${t.where} has no expr`);
      continue;
    }
    for (const m of t.expr.matchAll(/\$(\w+)/g))
      if (!m[1].startsWith('__') && !variables.has(m[1]))
        errors.push(`${dashboardFile}: ${t.where}: no variable $${m[1]}`);
    checkExpr(t.expr, `${path.basename(dashboardFile)}: ${t.where}`);
    if (t.where.startsWith('variable')) continue; // label_values() is Grafana's, not PromQL
    // For promtool's parser: Grafana's variables as a query would have them.
    const expr = t.expr
      .replace(/\$__(rate_)?interval|\$__range/g, '5m')
      .replace(/\$\{?(\w+)\}?/g, (v, name) => (variables.has(name) ? 'x' : v));
    dashboardRules.push({ record: t.record, expr });
  }
  writeFileSync(
    promqlOut,
    YAML.stringify({ groups: [{ name: 'dashboard', rules: dashboardRules }] }, { lineWidth: 0 }),
  );

  if (errors.length) {
    for (const e of errors) console.error(`error: ${e}`);
    process.exit(1);
  }
  console.log(
    `${alerts} alerts and ${rules.length - alerts} recording rules (${rulesFile}), ${targets.length} dashboard queries: ` +
      `every metric and label one the services export (${metrics.size} metrics found in their code and prom-client), ` +
      `every alert with its runbook section in ${path.relative(REPO, path.resolve(runbookFile))}`,
  );
}

function listMetrics() {
  const { metrics, problems } = definedMetrics();
  for (const [name, m] of [...metrics].sort())
    console.log(`${name}\t${m.type}\t${[...m.labels].join(',')}\t${m.where}`);
  for (const p of problems) console.error(`error: ${p}`);
  if (problems.length) process.exit(1);
}

const [command, ...rest] = process.argv.slice(2);
try {
  if (command === 'extract') extract(rest);
  else if (command === 'queries') queries(rest);
  else if (command === 'metrics') listMetrics();
  else throw new Error('usage: rules-check.mjs extract|queries|metrics ...');
} catch (err) {
  console.error(`error: ${err.message}`);
  process.exit(1);
}
