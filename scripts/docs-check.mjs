#!/usr/bin/env node
// The docs check (a phase of `npm test`): what README.md, docs/*.md and services/*/README.md name must exist, so a
// move, a rename or a removed variable fails the run instead of leaving the docs quietly wrong.
//
//   node scripts/docs-check.mjs [check] [selftest]      (no argument: check)
//     check      checks the working tree's documents; prints `FILE:LINE: problem` for each one and exits 1
//     selftest   plants a missing path, link anchor, npm script and variables in copies of the documents (README.md,
//                docs/ pages, services' READMEs) and expects the check to fail naming each, file and line; the
//                unmodified copies must give what the working tree gives
//
// What is checked, in the text of each document (code blocks, `code` spans, links and prose):
//  - Paths. A token is taken for a path when it has a `/` and either starts with a top-level entry of the repository
//    (`services/…`, `deploy/…`, `.github/…`) or, inside code, ends with `/` or a file extension of ours (.ts, .sh,
//    .md, …); inside code a bare file name with such an extension (`stories.routes.ts`) is one too. It must exist
//    (tracked, or new and not ignored: `git ls-files -co --exclude-standard`): from the repository's root, from the
//    document's folder, from the folder a `cd DIR &&` before it names, or, because the docs name files relative to
//    the service or folder they talk about (`src/config.ts`, `cache/epoch.ts`), as the tail of some path. `<svc>`,
//    `<…>`, `NNNN`, `*`, `**` are wildcards (some path must match); `{a,b}` and `a|b` are alternatives (each must
//    exist). Not paths: URLs, absolute and `~` paths (the machine's, not the repository's), and paths under what
//    the root .gitignore ignores (`.flowboard/`, `dist/`, `node_modules/`: made at run time).
//  - Links: a relative link's target must exist from the document's folder; its `#anchor` must be a heading of the
//    target (GitHub's slugs).
//  - npm scripts: `npm run X` must be a script of the root package.json, or of the workspace `-w`/`--workspace`
//    names (by package name or folder) or `cd DIR &&` enters; `npm test|start|stop` too. `turbo run X…` must name
//    tasks of turbo.json. A `@flowboard/…` name must be a workspace or a team of .github/CODEOWNERS; another
//    `@scope/name` in code must be in package-lock.json.
//  - Environment variables: a NAME_WITH_UNDERSCORES in code, or `$NAME_…`/`NAME_…=` anywhere, must be read or set
//    somewhere in the code or deployment: a key of a config schema (a `config.ts`), `env.NAME` or a 'NAME' string
//    in the code (.ts/.js/.mjs/.cjs, tests included), `$NAME`/`${NAME}`/`NAME=`/`export NAME` in the shell scripts
//    (scripts/, deploy/, bench/, test/, .ci/run, Dockerfiles, .env files), or a key, `name: NAME`, `"NAME"`,
//    `${NAME}`/`$(NAME)` or `NAME=` in deploy/'s YAML and JSON (chart, values schema, compose). Comment lines of
//    those files do not count. `<…>` and `*` in a name are wildcards. Not variables: gRPC status codes, names our
//    TypeScript declares (`const WIRE_…`), NOT_VARIABLES; single words (`$KEY` in an example) are not checked.
//    EXTERNAL_VARIABLES are read by tools, not by our code.
//    Sharper, in the configuration tables (README.md "Configuration", one row per service; a service README's
//    "Configuration" table): each variable, single words included, must be a key of that service's config schema
//    (`services/<svc>/src/**/config.ts`): a variable moved to another service, or dropped, fails there.
//  - Exceptions, each with its reason, are in EXCEPTIONS (names of things outside the repository), EXTERNAL_VARIABLES
//    and NOT_VARIABLES below; kubectl's `deploy/<name>` is a resource, not a path.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(REPO, 'package.json'));

/** Variables the docs may name though no code of ours reads or sets them: tools and libraries read them. */
const EXTERNAL_VARIABLES = [
  /^OTEL_/, // the OpenTelemetry SDK reads the standard OTEL_* variables itself (README "Tracing")
  /^NODE_OPTIONS$/, // Node itself
  /^TESTCONTAINERS_/, // testcontainers reads its own variables
];

/** Words that look like variables and are not (protocol values, SQL, buf rule sets, placeholders in examples). */
const NOT_VARIABLES = new Set([
  'NO_SIDE_EFFECTS', // proto `option idempotency_level`
  'IDEMPOTENCY_UNKNOWN',
  'SKIP_LOCKED', // SQL (FOR UPDATE SKIP LOCKED)
  'WIRE_JSON', // buf breaking's rule sets (docs/design.md, "Contracts between teams")
  'WIRE',
  'SASL_SSL', // a Kafka listener's security protocol (docs/operations.md, "Kafka TLS and SASL")
]);

/** Names the docs use on purpose for things outside the repository (paths) or read by nothing of ours (variables). */
const EXCEPTIONS = {
  paths: new Set([
    // The team's shared folders, outside this repository: the API contract and the first compatibility notes.
    'board-api.md',
    'spec/',
    '../shared/spec/board-api.md',
    'reference/api-compat.md',
    // The operator's own files in the deployment examples (README "Install" and "Upgrade", docs/releasing.md).
    'flowboard.yaml',
    'versions.yaml',
    'boards-migrate-1-1-0.yaml',
    'Chart.lock', // docs/releasing.md: the lock file of an umbrella chart we chose not to have
    'logs/', // README: inside .flowboard/cluster/, made at run time
  ]),
  variables: new Set([]),
};

// Extensions of the files we keep (a token ending in one of them, inside code, is a path).
const FILE_EXTENSIONS =
  /\.(ts|js|mjs|cjs|json|md|sh|ya?ml|proto|sql|toml|env|txt|tgz|conf|html|css|lock|gitignore|dockerignore)$/;

const git = (...args) => execFileSync('git', args, { cwd: REPO, encoding: 'utf8', maxBuffer: 64 << 20 });

// --- what exists ----------------------------------------------------------------------------------------------

/** Every file (tracked, or untracked and not ignored, and present) and every folder holding one. */
function repositoryPaths() {
  const files = git('ls-files', '-co', '--exclude-standard', '-z')
    .split('\0')
    .filter((f) => f && fs.existsSync(path.join(REPO, f)));
  const all = new Set();
  const dirs = new Set();
  for (const f of files) {
    all.add(f);
    for (let d = path.posix.dirname(f); d !== '.'; d = path.posix.dirname(d)) {
      if (dirs.has(d)) break;
      dirs.add(d);
      all.add(d);
    }
  }
  return { files, dirs, all };
}

/** What the root .gitignore ignores, as a test on a path's segments (folders) and base name (files). */
function ignoredByGit() {
  const lines = fs
    .readFileSync(path.join(REPO, '.gitignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const folders = new Set(lines.filter((l) => l.endsWith('/')).map((l) => l.slice(0, -1)));
  const names = lines.filter((l) => !l.endsWith('/')).map(globToRegExp);
  return (p) => {
    const segments = p.split('/').filter(Boolean);
    return segments.some((s) => folders.has(s)) || names.some((re) => re.test(segments.at(-1) ?? ''));
  };
}

function globToRegExp(glob) {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      re += '.*';
      i++;
      if (glob[i + 1] === '/') i++;
    } else if (c === '*') re += '[^/]*';
    else re += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** The workspaces: folder → { name, scripts }, and package name → folder. */
function workspaces() {
  const root = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
  const byDir = new Map([['.', { name: root.name, scripts: root.scripts ?? {} }]]);
  for (const pattern of root.workspaces) {
    const parent = pattern.endsWith('/*') ? pattern.slice(0, -2) : null;
    const dirs = parent
      ? fs.readdirSync(path.join(REPO, parent)).map((d) => path.posix.join(parent, d))
      : [pattern];
    for (const dir of dirs) {
      const file = path.join(REPO, dir, 'package.json');
      if (!fs.existsSync(file)) continue;
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
      byDir.set(dir, { name: pkg.name, scripts: pkg.scripts ?? {} });
    }
  }
  const byName = new Map([...byDir].map(([dir, w]) => [w.name, dir]));
  const turbo = JSON.parse(fs.readFileSync(path.join(REPO, 'turbo.json'), 'utf8'));
  return { byDir, byName, turboTasks: new Set(Object.keys(turbo.tasks ?? {})) };
}

const VARIABLE = '[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*';

/** Every variable the code and deployment read or set (see the rules at the top). */
function knownVariables(files) {
  const known = new Set();
  const add = (re, text) => {
    for (const m of text.matchAll(re)) known.add(m[1]);
  };
  const withoutCommentLines = (text, marker) =>
    text
      .split('\n')
      .filter((l) => !marker.test(l))
      .join('\n');
  for (const f of files) {
    const text = () => fs.readFileSync(path.join(REPO, f), 'utf8');
    const top = f.split('/')[0];
    // (not this script: its selftest's planted names would count)
    if (/\.(ts|js|mjs|cjs)$/.test(f) && f !== 'scripts/docs-check.mjs') {
      const code = withoutCommentLines(text(), /^\s*(\/\/|\/?\*)/);
      if (/(^|\/)config\.ts$/.test(f)) add(new RegExp(`^\\s*(${VARIABLE})\\??\\s*:`, 'gm'), code);
      add(new RegExp(`\\benv\\.(${VARIABLE})\\b`, 'g'), code);
      add(new RegExp(`['"\`](${VARIABLE})['"\`]`, 'g'), code);
    }
    const shell = /\.sh$/.test(f) || f === '.ci/run' || /(^|\/)Dockerfile$/.test(f) || /\.env$/.test(f);
    if (shell && ['scripts', 'deploy', 'bench', '.ci', 'test'].includes(top)) {
      const code = withoutCommentLines(text(), /^\s*#/);
      add(new RegExp(`\\$\\{?(${VARIABLE})\\b`, 'g'), code);
      add(
        new RegExp(`(?:^|[\\s;(])(?:export\\s+|local\\s+|readonly\\s+|unset\\s+)?(${VARIABLE})\\+?=`, 'gm'),
        code,
      );
      add(new RegExp(`(?:export|unset|ENV|ARG)\\s+(${VARIABLE})\\b`, 'g'), code);
      add(new RegExp(`['"](${VARIABLE})['"]`, 'g'), code);
    }
    if (top === 'deploy' && /\.(ya?ml|json|tpl|txt)$/.test(f)) {
      const doc = withoutCommentLines(text(), /^\s*#/);
      add(new RegExp(`^[\\s-]*(${VARIABLE})\\s*:`, 'gm'), doc);
      add(new RegExp(`name:\\s*['"]?(${VARIABLE})\\b`, 'g'), doc);
      add(new RegExp(`['"](${VARIABLE})['"]`, 'g'), doc);
      add(new RegExp(`\\$[({](${VARIABLE})\\b`, 'g'), doc);
      add(new RegExp(`(?:^|[\\s-])(${VARIABLE})=`, 'gm'), doc);
    }
  }
  known.delete(undefined);
  return known;
}

/** Constants and types our TypeScript declares in UPPER_CASE (`WIRE_JSON`): the docs name them; not variables. */
function declaredNames(files) {
  const names = new Set();
  for (const f of files.filter((f) => /\.ts$/.test(f))) {
    const code = fs.readFileSync(path.join(REPO, f), 'utf8');
    for (const m of code.matchAll(
      new RegExp(`\\b(?:const|let|var|enum|type|interface|function)\\s+(${VARIABLE})\\b`, 'g'),
    )) {
      if (m[1].includes('_')) names.add(m[1]);
    }
  }
  return names;
}

// --- reading the documents ------------------------------------------------------------------------------------

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(text) {
  const anchors = new Set();
  const seen = new Map();
  let fence = false;
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) fence = !fence;
    const m = !fence && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1].replace(/`/g, ''));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  return anchors;
}

/**
 * The pieces of a document to check, line by line: { line, kind: 'code'|'prose'|'link', text }. Code: a fenced
 * block's line or a `span`; links: `](target)`; prose: the rest of the line.
 */
function* pieces(text) {
  let fence = false;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const n = i + 1;
    if (/^\s*(```|~~~)/.test(line)) {
      fence = !fence;
      continue;
    }
    if (fence) {
      yield { line: n, kind: 'code', text: line.replace(/\s#\s.*$/, '') }; // a shell comment is prose
      const comment = /\s#\s(.*)$/.exec(line);
      if (comment) yield { line: n, kind: 'prose', text: comment[1] };
      continue;
    }
    let prose = line;
    for (const m of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g))
      yield { line: n, kind: 'link', text: m[1] };
    prose = prose.replace(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g, ']');
    for (const m of prose.matchAll(/(`+)(.+?)\1/g)) yield { line: n, kind: 'code', text: m[2] };
    prose = prose.replace(/(`+)(.+?)\1/g, ' ');
    yield { line: n, kind: 'prose', text: prose };
  }
}

// --- the checks -----------------------------------------------------------------------------------------------

function createChecker() {
  const { files, dirs, all } = repositoryPaths();
  const ignored = ignoredByGit();
  const ws = workspaces();
  const variables = knownVariables(files);
  const topLevel = new Set([...all].map((p) => p.split('/')[0]));
  const grpcCodes = new Set(Object.keys(require('@grpc/grpc-js').status).filter((k) => Number.isNaN(+k)));
  const lockfile = JSON.parse(fs.readFileSync(path.join(REPO, 'package-lock.json'), 'utf8'));
  const installed = new Set(
    Object.keys(lockfile.packages ?? {}).map((k) => k.replace(/^.*node_modules\//, '')),
  );
  const allList = [...all];
  const owners = new Set(
    fs.readFileSync(path.join(REPO, '.github/CODEOWNERS'), 'utf8').match(/@[\w-]+\/[\w-]+/g) ?? [],
  );
  const declared = declaredNames(files);
  const configKeys = new Map();
  /** The keys of a service's config schemas (src/config.ts, or any config.ts under its src/). */
  const serviceConfigKeys = (svc) => {
    if (!configKeys.has(svc)) {
      const keys = new Set();
      for (const f of files.filter(
        (f) => f.startsWith(`services/${svc}/src/`) && /(^|\/)config\.ts$/.test(f),
      )) {
        const code = fs.readFileSync(path.join(REPO, f), 'utf8');
        for (const m of code.matchAll(new RegExp(`^\\s*(${VARIABLE})\\??\\s*:`, 'gm'))) keys.add(m[1]);
      }
      configKeys.set(svc, keys);
    }
    return configKeys.get(svc);
  };
  const counts = { paths: 0, links: 0, scripts: 0, variables: 0, packages: 0 };

  const exists = (p, dirOnly) => {
    p = path.posix.normalize(p).replace(/\/$/, '');
    return dirOnly ? dirs.has(p) : all.has(p);
  };
  const matchesSomePath = (re) => allList.some((p) => re.test(p));

  /** Alternatives of a token: {a,b} and a|b expanded. */
  const alternatives = (token) => {
    const brace = /\{([^{}]*,[^{}]*)\}/.exec(token);
    if (brace) {
      return brace[1]
        .split(',')
        .flatMap((alt) =>
          alternatives(token.slice(0, brace.index) + alt + token.slice(brace.index + brace[0].length)),
        );
    }
    const bar = /(^|\/)([^/|]+(?:\|[^/|]+)+)(\/|$)/.exec(token);
    if (bar) {
      return bar[2]
        .split('|')
        .flatMap((alt) =>
          alternatives(
            token.slice(0, bar.index + bar[1].length) +
              alt +
              token.slice(bar.index + bar[1].length + bar[2].length),
          ),
        );
    }
    return [token];
  };

  /** Whether a path token exists (see the rules at the top), from the doc's folder and the cd folder. */
  const pathFound = (token, docDir, cdDir) => {
    const dirOnly = token.endsWith('/');
    const wild = /<[^>]*>|…|\.\.\.|NNNN|\*/.test(token);
    const bases = ['.', docDir, cdDir].filter(Boolean);
    if (!wild) {
      if (bases.some((b) => exists(path.posix.join(b, token), dirOnly))) return true;
      const tail = `/${path.posix.normalize(token).replace(/\/$/, '')}`;
      return (dirOnly ? [...dirs] : allList).some((p) => p.endsWith(tail));
    }
    const glob = token
      .replace(/<[^>]*>|…|\.\.\.|NNNN/g, '*')
      .replace(/\/$/, '')
      .replace(/^\.\//, '');
    const re = globToRegExp(glob).source.slice(1, -1);
    return (
      bases.some((b) => matchesSomePath(new RegExp(`^${b === '.' ? '' : `${b}/`}${re}$`))) ||
      matchesSomePath(new RegExp(`(^|/)${re}$`))
    );
  };

  /** A token that names a path, cleaned, or null. */
  const asPath = (raw, kind) => {
    const token = raw.replace(/^[('"[]+|[)'",.;:\]]+$/g, '').replace(/#.*$/, '');
    if (!token || /:\/\/|^[/~$@-]|^\.\.$|=|^\d/.test(token)) return null;
    if (/[^\w.\-/<>{}|*…,+@[\]]/.test(token)) return null; // prose words, sums, paths with spaces
    const first = token.split('/')[0];
    if (token.includes('/') && topLevel.has(first) && first !== '') return token;
    if (kind !== 'code') return null;
    if (token.includes('/') && (token.endsWith('/') || FILE_EXTENSIONS.test(token))) return token;
    // A bare file name: a name before the extension, no `.env` (YAML keys such as `default.env` end so too).
    if (!token.includes('/') && /^[\w<>*{}-][\w.<>*{},-]*$/.test(token) && FILE_EXTENSIONS.test(token)) {
      return /\.env$/.test(token) ? null : token;
    }
    return null;
  };

  const variableKnown = (name) => {
    if (EXCEPTIONS.variables.has(name) || EXTERNAL_VARIABLES.some((re) => re.test(name))) return true;
    if (/[<*]/.test(name)) {
      const re = new RegExp(`^${name.replace(/<[^>]*>|\*/g, '[A-Z0-9_]+')}$`);
      return [...variables].some((v) => re.test(v));
    }
    return variables.has(name);
  };

  /** The checks of one document: its problems as { line, message }. */
  function checkDocument(doc, text, readDoc) {
    const problems = [];
    const docDir = path.posix.dirname(doc);
    const report = (line, message) => problems.push({ line, message });
    const anchorCache = new Map();
    const anchors = (target) => {
      if (!anchorCache.has(target)) anchorCache.set(target, anchorsOf(readDoc(target)));
      return anchorCache.get(target);
    };
    // The configuration tables: README.md's row per service, a service README's own table (see the rules at the top).
    const ownService = /^services\/([^/]+)\/README\.md$/.exec(doc)?.[1];
    let section = '';
    for (const [i, row] of text.split('\n').entries()) {
      if (/^##\s/.test(row)) section = row.replace(/^#+\s*/, '').trim();
      if (section !== 'Configuration' || !row.startsWith('|')) continue;
      const cells = row.split('|').map((c) => c.trim());
      let svc = ownService;
      let names = [...(cells[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]);
      if (doc === 'README.md') {
        svc = cells[1];
        names = [...(cells[2] ?? '').matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]);
      }
      if (!svc || !fs.existsSync(path.join(REPO, 'services', svc))) continue;
      counts.variables += names.length;
      const keys = serviceConfigKeys(svc);
      for (const name of names) {
        if (!keys.has(name))
          report(i + 1, `variable ${name}: not in services/${svc}'s config schema (src/config.ts)`);
      }
    }
    for (const { line, kind, text: piece } of pieces(text)) {
      if (kind === 'link') {
        if (/^[a-z][a-z0-9+.-]*:/i.test(piece)) continue; // http:, mailto:
        counts.links++;
        const [target, anchor] = piece.split('#');
        const file = target ? path.posix.normalize(path.posix.join(docDir, decodeURI(target))) : doc;
        if (target && !exists(file)) {
          report(line, `link target ${piece}: ${file} does not exist`);
        } else if (anchor !== undefined && file.endsWith('.md') && !anchors(file).has(anchor)) {
          report(line, `link ${piece}: ${file} has no heading with the anchor #${anchor}`);
        }
        continue;
      }
      const cd = /\bcd\s+([\w./-]+)\s*&&/.exec(piece)?.[1];
      const cdDir = cd && exists(cd, true) ? path.posix.normalize(cd) : null;
      // npm scripts and turbo tasks
      for (const m of piece.matchAll(
        /\bnpm\s+(?:run(?:-script)?\s+)((?:-{1,2}[\w-]+\s+)*)([\w:.-]+)([^;&|`]*)/g,
      )) {
        const script = m[2].replace(/[:.]+$/, '');
        counts.scripts++;
        const rest = m[1] + m[3];
        const w = /(?:-w|--workspace)[\s=]+(\S+)/.exec(rest)?.[1];
        const dir = w
          ? (ws.byName.get(w) ?? (ws.byDir.has(w.replace(/\/$/, '')) ? w.replace(/\/$/, '') : null))
          : (cdDir ?? '.');
        if (w && !dir) report(line, `npm run ${script} -w ${w}: no workspace ${w}`);
        else if (!ws.byDir.has(dir)) report(line, `npm run ${script}: ${dir} is not a workspace`);
        else if (!Object.hasOwn(ws.byDir.get(dir).scripts, script)) {
          report(
            line,
            `npm run ${script}: no script "${script}" in ${dir === '.' ? '' : `${dir}/`}package.json`,
          );
        }
      }
      if (kind === 'code') {
        for (const m of piece.matchAll(/\bnpm\s+(test|start|stop|restart)\b/g)) {
          const dir = cdDir ?? '.';
          counts.scripts++;
          if (!Object.hasOwn(ws.byDir.get(dir)?.scripts ?? {}, m[1]))
            report(line, `npm ${m[1]}: no script "${m[1]}"`);
        }
        for (const m of piece.matchAll(/\bturbo\s+run\s+((?:[\w:-]+\s*)+)/g)) {
          for (const task of m[1].trim().split(/\s+/)) {
            counts.scripts++;
            if (!ws.turboTasks.has(task)) report(line, `turbo run ${task}: no task "${task}" in turbo.json`);
          }
        }
      }
      // paths
      for (const raw of piece.match(/(?:\{[^{}\s]*\}|[^\s,;()])+/g) ?? []) {
        const token = asPath(raw, kind);
        // kubectl's resource/name (`logs deploy/flowboard-membership`) is not a path
        if (
          token &&
          /\bkubectl\b/.test(piece) &&
          /^(deploy|deployment|job|pod|svc|service)\/[\w-]+$/.test(token)
        )
          continue;
        if (!token || EXCEPTIONS.paths.has(token) || ignored(token.replace(/<[^>]*>/g, 'x'))) continue;
        for (const alt of alternatives(token)) {
          counts.paths++;
          if (EXCEPTIONS.paths.has(alt) || pathFound(alt, docDir, cdDir)) continue;
          report(line, `path ${alt}${alt !== token ? ` (of ${token})` : ''} does not exist`);
        }
      }
      // packages
      for (const m of piece.matchAll(/(?<![\w.])@([a-z0-9-]+)\/([a-z0-9._-]*[a-z0-9])(?![\w*<-])/g)) {
        const name = `@${m[1]}/${m[2]}`;
        counts.packages++;
        if (
          m[1] === 'flowboard'
            ? !ws.byName.has(name) && !owners.has(name)
            : kind === 'code' && !installed.has(name)
        ) {
          const where =
            m[1] === 'flowboard'
              ? 'neither a workspace nor a team of .github/CODEOWNERS'
              : 'not in package-lock.json';
          report(line, `package ${name} is ${where}`);
        }
      }
      // variables
      const names = new Set();
      const NAME = `[A-Z][A-Z0-9]*(?:_(?:[A-Z0-9]+|<[^>]*>|\\*))*`;
      for (const m of piece.matchAll(new RegExp(`\\$\\{?(${NAME})|(?<![\\w.-])(${NAME})=`, 'g')))
        names.add(m[1] ?? m[2]);
      if (kind === 'code') {
        for (const m of piece.matchAll(new RegExp(`(?<![\\w.<>/-])(${NAME})(?![\\w.<>(/-])`, 'g'))) {
          if (m[1].includes('_') && /[A-Z]/.test(m[1].replace(/<[^>]*>/g, ''))) names.add(m[1]);
        }
      }
      for (const name of names) {
        if (!name.includes('_')) continue; // single words: mostly the reader's own shell variables ($KEY, $GW)
        if (/_$/.test(name) || grpcCodes.has(name) || NOT_VARIABLES.has(name) || declared.has(name)) continue;
        counts.variables++;
        if (!variableKnown(name))
          report(line, `variable ${name} is neither read nor set by our code or deployment`);
      }
    }
    return problems;
  }
  return { checkDocument, variables, counts };
}

/** The documents checked, as repository-relative names. */
function documents(root) {
  const list = ['README.md'];
  for (const f of fs.readdirSync(path.join(root, 'docs')).sort())
    if (f.endsWith('.md')) list.push(`docs/${f}`);
  for (const svc of fs.readdirSync(path.join(root, 'services')).sort()) {
    if (fs.existsSync(path.join(root, 'services', svc, 'README.md'))) list.push(`services/${svc}/README.md`);
  }
  return list;
}

/** Runs the check on the documents under `root` (the repository, or a copy); returns the problem lines. */
function check(root, checker = createChecker()) {
  const readDoc = (doc) => {
    for (const base of [root, REPO]) {
      const file = path.join(base, doc);
      if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8');
    }
    return '';
  };
  const out = [];
  for (const doc of documents(root)) {
    for (const { line, message } of checker.checkDocument(doc, readDoc(doc), readDoc))
      out.push(`${doc}:${line}: ${message}`);
  }
  return out;
}

function runCheck() {
  const checker = createChecker();
  const problems = check(REPO, checker);
  const c = checker.counts;
  const checked = `${c.paths} paths, ${c.links} links, ${c.scripts} npm scripts and turbo tasks, ${c.variables} variables, ${c.packages} packages`;
  if (problems.length) {
    console.error(
      `docs-check: ${problems.length} problem(s) of ${checked} (rules: the top of scripts/docs-check.mjs):`,
    );
    for (const p of problems) console.error(`FAIL ${p}`);
    return false;
  }
  console.log(`docs-check: ${documents(REPO).join(', ')}: every one named exists (${checked})`);
  return true;
}

function selftest() {
  const checker = createChecker();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'flowboard-docs-check-'));
  try {
    const copy = () => {
      fs.rmSync(tmp, { recursive: true, force: true });
      for (const doc of documents(REPO)) {
        fs.mkdirSync(path.join(tmp, path.dirname(doc)), { recursive: true });
        fs.copyFileSync(path.join(REPO, doc), path.join(tmp, doc));
      }
    };
    const baseline = check((copy(), tmp), checker);
    // Plants: each is appended to a copy of one document; the check must name that file and line.
    const plants = [
      ['README.md', 'See `scripts/no-such-check.sh`.', 'path scripts/no-such-check.sh does not exist'],
      [
        'README.md',
        'See [design](docs/design.md#no-such-heading).',
        'has no heading with the anchor #no-such-heading',
      ],
      ['docs/releasing.md', 'Run `npm run no-such-script`.', 'no script "no-such-script" in package.json'],
      [
        'docs/design.md',
        'Run `npm run no-such-script -w @flowboard/boards`.',
        'no script "no-such-script" in services/boards/package.json',
      ],
      [
        'services/notifier/README.md',
        'Set `NOTIFIER_NO_SUCH_VARIABLE=1`.',
        'variable NOTIFIER_NO_SUCH_VARIABLE is neither read nor set',
      ],
      // a variable another service reads, in the configuration table of one that doesn't
      [
        'services/notifier/README.md',
        '| `DATABASE_URL` | required | |',
        "variable DATABASE_URL: not in services/notifier's config schema",
        /^\| `LOG_LEVEL`/,
      ],
      [
        'README.md',
        '| notifier | `S3_BUCKET` |',
        "variable S3_BUCKET: not in services/notifier's config schema",
        /^\| notifier +\| `HTTP_PORT`/,
      ],
      ['services/boards/README.md', 'In `src/no-such-folder/`.', 'path src/no-such-folder/ does not exist'],
    ];
    let failed = 0;
    for (const [doc, text, expected, after] of plants) {
      copy();
      const file = path.join(tmp, doc);
      // appended, or inserted after the first line matching `after`
      const lines = fs.readFileSync(file, 'utf8').replace(/\n?$/, '').split('\n');
      const at = after ? lines.findIndex((l) => after.test(l)) + 1 : lines.length;
      if (at === 0) throw new Error(`selftest: no line of ${doc} matches ${after}`);
      lines.splice(at, 0, text);
      const line = at + 1;
      fs.writeFileSync(file, `${lines.join('\n')}\n`);
      const unnumbered = (p) => p.replace(/:\d+: /, ': ');
      const found = check(tmp, checker).filter((p) => !baseline.map(unnumbered).includes(unnumbered(p)));
      const hit = found.some((p) => p.startsWith(`${doc}:${line}: `) && p.includes(expected));
      console.log(
        `${hit ? 'ok' : 'FAIL'} selftest: ${doc} + ${JSON.stringify(text)} → ${found.join(' | ') || 'passed'}`,
      );
      if (!hit) failed++;
    }
    copy();
    const clean = check(tmp, checker);
    const same = clean.length === baseline.length;
    console.log(`${same ? 'ok' : 'FAIL'} selftest: the unmodified copies give what the working tree gives`);
    if (!same) failed++;
    return failed === 0;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const modes = process.argv.slice(2);
let ok = true;
for (const mode of modes.length ? modes : ['check']) {
  if (mode === 'check') ok = runCheck() && ok;
  else if (mode === 'selftest') ok = selftest() && ok;
  else {
    console.error(`docs-check: unknown mode ${mode} (check, selftest)`);
    process.exit(2);
  }
}
process.exit(ok ? 0 : 1);
