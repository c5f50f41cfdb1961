#!/usr/bin/env node
// Checks what the pods of a rendered Helm chart (deploy/helm/flowboard) would get, against the services' own
// code; run by scripts/chart-check.sh on the `helm template` output of each values set, after the build
// (`npx turbo run build`: it loads services/<svc>/dist/config.js).
//
//   node scripts/chart-env-check.mjs [--existing-secret NAME] <values label>=<rendered.yaml> ...
//
// For every container and init container of every Deployment:
//  - environment: builds it as the kubelet would (the Services' link variables, then envFrom ConfigMaps/Secrets,
//    then `env` entries with $(VAR) expansion; secretKeyRef values from the rendered Secret, or for the Secret
//    named by --existing-secret, which the user provides, a fixture of the right shape for each key the chart
//    documents in values.schema.json `secrets.values`) and runs the service's own config loader on it: the
//    containers of a Deployment of component <svc> with services/<svc>'s start-up loader (load<Svc>Config, or
//    service-kit's loadConfig with its configSchema, as its main.ts does), its init container `migrate` with its
//    migration loader (loadMigrationConfig, or loadConfig with the schema its db/migrate.ts uses). Variables
//    the chart sets that the service's configSchema does not know (a typo is otherwise silently ignored) fail too,
//    except the runtime's own (NODE_OPTIONS, OTEL_*, ...). A service container given KAFKA_BROKERS then goes
//    through what its start checks before connecting to Kafka, @flowboard/messaging's kafkaSecurity: with a SASL
//    mechanism, a username and a password (not in the schemas; a component left out of the password's mapping).
//  - migrations: the init container `migrate` runs the service's own image (the version whose pods roll, not
//    another one's) with the same securityContext as the service; other init containers, and Jobs (the chart
//    runs no migration Jobs any more), are not understood and fail.
//  - topologySpreadConstraints: each has a labelSelector, and it selects its own pod template's labels (one that
//    selects nothing spreads nothing, and the API server warns).
//  - shutdown: terminationGracePeriodSeconds is larger than the preStop sleep plus the services' drain bound
//    (onShutdown's timeoutMs in packages/service-kit/src/shutdown.ts), so the kubelet never kills a pod mid-drain.
//  - network: every host:port in the pod's configuration (peer addresses, database and broker URLs; the init
//    container's database URL too) is admitted by the rendered NetworkPolicies: the pod's own egress rules, and for a Service of the release the ingress rules of
//    the pods behind it. (No enforcing CNI runs in the one-node test cluster, so a missing rule shows only here.)
// Prints one line per checked container and exits 1 with every problem, each naming the values set, the
// component and the object.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CHART = path.join(REPO, 'deploy/helm/flowboard');
const require = createRequire(path.join(REPO, 'package.json'));
const YAML = require('yaml'); // hoisted to the root node_modules (a dependency of the OpenTelemetry SDK)

/** Variables the runtime or libraries read, not the services' config schemas; the chart may set them. */
const RUNTIME_VARIABLES = [
  /^NODE_OPTIONS$/,
  /^NODE_EXTRA_CA_CERTS$/,
  /^UV_THREADPOOL_SIZE$/,
  /^TZ$/,
  /^OTEL_/,
];

/**
 * Variables the chart hands a service before its code reads them (peer addresses wired into every deployment ahead
 * of the release that uses them). An entry fails once the service's configSchema knows the variable: then it is
 * checked like any other, and the entry goes.
 */
const AHEAD_OF_CODE = {};

function usage(message) {
  console.error(`chart-env-check: ${message}`);
  console.error(
    'usage: node scripts/chart-env-check.mjs [--existing-secret NAME] <values label>=<rendered.yaml> ...',
  );
  process.exit(2);
}

const sets = [];
let existingSecret = '';
for (let i = 2; i < process.argv.length; i++) {
  const arg = process.argv[i];
  if (arg === '--existing-secret') {
    existingSecret = process.argv[++i] ?? usage('--existing-secret needs a name');
  } else if (arg.includes('=')) {
    const at = arg.lastIndexOf('=');
    sets.push({ label: arg.slice(0, at), file: arg.slice(at + 1) });
  } else {
    usage(`unexpected argument ${arg}`);
  }
}
if (!sets.length) usage('no rendered values set given');

// The Secret keys users are told to provide (README "Before installing", values.yaml `secrets:`).
const schema = JSON.parse(fs.readFileSync(path.join(CHART, 'values.schema.json'), 'utf8'));
const DOCUMENTED_SECRET_KEYS = new Set(
  Object.keys(schema.properties.secrets.properties.values.properties ?? {}),
);

/** A value of the right shape for a key of the user's Secret (its real value is not in the chart). */
function secretFixture(key) {
  if (/_DATABASE_URL$/.test(key)) return 'postgresql://fixture@postgres.fixture.svc:5432/flowboard';
  if (key === 'REDIS_URL') return 'redis://redis.fixture.svc:6379';
  if (key === 'SMTP_URL') return 'smtp://smtp.fixture.svc:25';
  if (/SECRET_ENCRYPTION_KEY$/.test(key)) return Buffer.alloc(32, 1).toString('base64'); // base64 of 32 bytes
  return `fixture-${key.toLowerCase().replace(/_/g, '-')}`;
}

/** The services' drain bound: onShutdown's default timeoutMs (runService uses it). */
function drainSeconds() {
  const src = fs.readFileSync(path.join(REPO, 'packages/service-kit/src/shutdown.ts'), 'utf8');
  const m = /export function onShutdown\([^{]*?timeoutMs\s*=\s*([\d_]+)/.exec(src);
  if (!m) throw new Error('packages/service-kit/src/shutdown.ts: no `onShutdown(..., timeoutMs = N)` found');
  return Number(m[1].replace(/_/g, '')) / 1000;
}
const DRAIN_SECONDS = drainSeconds();

// --- the services' loaders -------------------------------------------------------------------------------

const loaderCache = new Map();

/**
 * The config loaders of services/<svc>, from its build: { main, migration } as { name, load(env), keys }, or
 * { error }. `keys` is every variable its configSchema knows.
 */
function serviceLoaders(svc) {
  if (loaderCache.has(svc)) return loaderCache.get(svc);
  const dir = path.join(REPO, 'services', svc);
  const built = path.join(dir, 'dist/config.js');
  let result;
  if (!fs.existsSync(path.join(dir, 'package.json'))) {
    result = { error: `no service services/${svc} for this component` };
  } else if (!fs.existsSync(built)) {
    result = { error: `services/${svc}/dist/config.js is missing: build first (npx turbo run build)` };
  } else {
    const source = path.join(dir, 'src/config.ts');
    if (fs.existsSync(source) && fs.statSync(source).mtimeMs > fs.statSync(built).mtimeMs) {
      console.warn(
        `warning: services/${svc}/src/config.ts is newer than its dist/config.js; rebuild if it changed`,
      );
    }
    const serviceRequire = createRequire(path.join(dir, 'package.json'));
    const mod = serviceRequire(built);
    const { loadConfig } = serviceRequire('@flowboard/service-kit'); // what main.ts's loadConfigOrExit calls
    const fromSchema = (exportName) =>
      mod[exportName] && {
        name: `loadConfig(${exportName})`,
        load: (env) => loadConfig(mod[exportName], env),
      };
    const cap = svc.charAt(0).toUpperCase() + svc.slice(1);
    const named = (exportName) =>
      typeof mod[exportName] === 'function' && { name: exportName, load: (env) => mod[exportName](env) };
    const keys = new Set(Object.keys(mod.configSchema?.shape ?? {}));
    // What its start checks of the Kafka settings (a service without @flowboard/messaging has no Kafka).
    let kafkaSecurity;
    try {
      kafkaSecurity = serviceRequire('@flowboard/messaging').kafkaSecurity;
    } catch {
      kafkaSecurity = undefined;
    }
    result = {
      keys,
      kafkaSecurity,
      main: named(`load${cap}Config`) || fromSchema('configSchema'),
      migration:
        named('loadMigrationConfig') ||
        fromSchema('migrateConfigSchema') ||
        fromSchema('migrationConfigSchema') ||
        fromSchema('migrationSchema'),
    };
    if (!result.main)
      result = { error: `services/${svc}/dist/config.js exports no load${cap}Config or configSchema` };
  }
  loaderCache.set(svc, result);
  return result;
}

// --- the container environment, as the kubelet makes it ----------------------------------------------------

const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

/** Docker-link style variables of the namespace's Services (enableServiceLinks, on by default), and the API's. */
function serviceLinkEnv(services) {
  const env = {};
  const add = (name, ip, ports) => {
    const prefix = name.toUpperCase().replace(/-/g, '_');
    env[`${prefix}_SERVICE_HOST`] = ip;
    env[`${prefix}_SERVICE_PORT`] = String(ports[0].port);
    for (const p of ports) {
      const proto = (p.protocol ?? 'TCP').toUpperCase();
      const base = `${prefix}_PORT_${p.port}_${proto}`;
      if (p.name) env[`${prefix}_SERVICE_PORT_${p.name.toUpperCase().replace(/-/g, '_')}`] = String(p.port);
      env[base] = `${proto.toLowerCase()}://${ip}:${p.port}`;
      env[`${base}_PROTO`] = proto.toLowerCase();
      env[`${base}_PORT`] = String(p.port);
      env[`${base}_ADDR`] = ip;
    }
    env[`${prefix}_PORT`] = `${(ports[0].protocol ?? 'TCP').toLowerCase()}://${ip}:${ports[0].port}`;
  };
  add('kubernetes', '10.96.0.1', [{ name: 'https', port: 443 }]);
  services.forEach((s, i) => {
    if (s.spec?.clusterIP === 'None' || !s.spec?.ports?.length) return;
    add(s.metadata.name, `10.96.1.${i + 1}`, s.spec.ports);
  });
  return env;
}

/** Kubernetes' $(VAR) expansion of `env[].value` ($$ escapes; unknown references stay as they are). */
function expand(value, env) {
  return value.replace(/\$\$|\$\(([^)]*)\)/g, (m, name) => {
    if (m === '$$') return '$';
    return Object.hasOwn(env, name) ? env[name] : m;
  });
}

/**
 * The container's environment: { env, set (the names the chart sets, for the unknown-variable check), problems }.
 */
function containerEnv(pod, container, objects) {
  const problems = [];
  const secretValue = (ref) => {
    const secret = objects.secrets.get(ref.name);
    if (secret) {
      const data = { ...secret.stringData };
      for (const [k, v] of Object.entries(secret.data ?? {})) data[k] ??= Buffer.from(v, 'base64').toString();
      if (Object.hasOwn(data, ref.key)) return data[ref.key];
      if (!ref.optional) problems.push(`Secret ${ref.name} (rendered) has no key ${ref.key}`);
      return undefined;
    }
    if (ref.name === existingSecret) {
      if (DOCUMENTED_SECRET_KEYS.has(ref.key)) return secretFixture(ref.key);
      if (!ref.optional) {
        problems.push(
          `key ${ref.key} of the existing Secret ${ref.name} is not one users are told to provide ` +
            `(values.schema.json secrets.values: ${[...DOCUMENTED_SECRET_KEYS].join(', ')})`,
        );
      }
      return undefined;
    }
    if (!ref.optional) problems.push(`Secret ${ref.name} is neither rendered nor the existing Secret`);
    return undefined;
  };
  const configMapData = (name, optional) => {
    const cm = objects.configMaps.get(name);
    if (!cm && !optional) problems.push(`ConfigMap ${name} is not rendered`);
    return cm?.data ?? {};
  };

  const env = {};
  const set = new Set();
  const put = (name, value) => {
    if (!ENV_NAME.test(name)) return; // the kubelet skips these (with an event)
    env[name] = value;
    set.add(name);
  };
  for (const from of container.envFrom ?? []) {
    const prefix = from.prefix ?? '';
    if (from.configMapRef) {
      for (const [k, v] of Object.entries(
        configMapData(from.configMapRef.name, from.configMapRef.optional),
      )) {
        put(prefix + k, String(v));
      }
    } else if (from.secretRef) {
      const secret = objects.secrets.get(from.secretRef.name);
      if (!secret && from.secretRef.name !== existingSecret && !from.secretRef.optional) {
        problems.push(`Secret ${from.secretRef.name} is neither rendered nor the existing Secret`);
      }
      const keys = secret
        ? [...Object.keys(secret.stringData ?? {}), ...Object.keys(secret.data ?? {})]
        : [...DOCUMENTED_SECRET_KEYS];
      for (const k of keys) put(prefix + k, secretValue({ name: from.secretRef.name, key: k }));
    } else {
      problems.push(`envFrom entry ${JSON.stringify(from)} is not understood by this check`);
    }
  }
  const links = pod.enableServiceLinks === false ? {} : objects.serviceLinks;
  for (const e of container.env ?? []) {
    const vf = e.valueFrom;
    let value;
    if (!vf) value = expand(String(e.value ?? ''), { ...links, ...env });
    else if (vf.secretKeyRef) value = secretValue(vf.secretKeyRef);
    else if (vf.configMapKeyRef) {
      const data = configMapData(vf.configMapKeyRef.name, vf.configMapKeyRef.optional);
      value = data[vf.configMapKeyRef.key];
      if (value === undefined && !vf.configMapKeyRef.optional) {
        problems.push(`ConfigMap ${vf.configMapKeyRef.name} has no key ${vf.configMapKeyRef.key}`);
      }
    } else if (vf.fieldRef) value = `fieldRef-${vf.fieldRef.fieldPath}`;
    else if (vf.resourceFieldRef) value = '1';
    else problems.push(`env ${e.name}: valueFrom ${JSON.stringify(vf)} is not understood by this check`);
    if (value !== undefined) put(e.name, String(value));
  }
  for (const [k, v] of Object.entries(links)) if (!Object.hasOwn(env, k)) env[k] = v;
  return { env, set, problems };
}

// --- pod checks ------------------------------------------------------------------------------------------

function selects(selector, labels) {
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, key);
    const ok =
      operator === 'In'
        ? has && values.includes(labels[key])
        : operator === 'NotIn'
          ? !has || !values.includes(labels[key])
          : operator === 'Exists'
            ? has
            : operator === 'DoesNotExist'
              ? !has
              : false;
    if (!ok) return false;
  }
  return true;
}

function podProblems(template, containers) {
  const problems = [];
  const labels = template.metadata?.labels ?? {};
  const pod = template.spec;
  (pod.topologySpreadConstraints ?? []).forEach((c, i) => {
    const what = `topologySpreadConstraints[${i}] (${c.topologyKey})`;
    if (!c.labelSelector || (!c.labelSelector.matchLabels && !c.labelSelector.matchExpressions)) {
      problems.push(
        `${what} has no labelSelector (or an empty one): it does not spread the component's own pods`,
      );
    } else if (!selects(c.labelSelector, labels)) {
      problems.push(
        `${what}: labelSelector ${JSON.stringify(c.labelSelector)} does not select the pod's own labels`,
      );
    }
  });
  const grace = pod.terminationGracePeriodSeconds ?? 30;
  for (const c of containers) {
    const sleep = c.lifecycle?.preStop?.sleep?.seconds ?? 0;
    if (c.lifecycle?.preStop && !c.lifecycle.preStop.sleep) {
      problems.push(`container ${c.name}: a preStop hook other than sleep is not understood by this check`);
    }
    if (grace <= sleep + DRAIN_SECONDS) {
      problems.push(
        `container ${c.name}: terminationGracePeriodSeconds ${grace} is not larger than its preStop sleep ` +
          `(${sleep} s) + the services' drain bound (${DRAIN_SECONDS} s, packages/service-kit/src/shutdown.ts)`,
      );
    }
  }
  return problems;
}

// --- main --------------------------------------------------------------------------------------------------

const failures = [];
for (const { label, file } of sets) {
  const docs = YAML.parseAllDocuments(fs.readFileSync(file, 'utf8'))
    .map((d) => {
      if (d.errors.length) throw new Error(`${file}: ${d.errors[0].message}`);
      return d.toJS();
    })
    .filter(Boolean);
  const byKind = (kind) => docs.filter((d) => d.kind === kind);
  const objects = {
    configMaps: new Map(byKind('ConfigMap').map((d) => [d.metadata.name, d])),
    secrets: new Map(byKind('Secret').map((d) => [d.metadata.name, d])),
    serviceLinks: serviceLinkEnv(byKind('Service')),
    services: new Map(byKind('Service').map((d) => [d.metadata.name, d])),
    deployments: byKind('Deployment'),
    networkPolicies: byKind('NetworkPolicy'),
  };
  const workloads = byKind('Deployment');
  if (!workloads.length) failures.push(`[${label}] no Deployment rendered`);
  for (const job of byKind('Job')) {
    failures.push(
      `[${label}] Job ${job.metadata.name}: not understood by this check (migrations run in the Deployments' ` +
        'init container `migrate`, not in Jobs)',
    );
  }

  for (const w of workloads) {
    const template = w.spec.template;
    const component = template.metadata?.labels?.['app.kubernetes.io/component'] ?? '(no component label)';
    const object = `${w.kind} ${w.metadata.name}`;
    const problems = podProblems(template, template.spec.containers);
    const passed = checkEnvironment(w, component, objects, problems);
    if (problems.length) {
      failures.push(
        `[${label}] component ${component} (${object}):\n${problems.map((p) => `    - ${p}`).join('\n')}`,
      );
    } else {
      for (const line of passed) console.log(`ok [${label}] ${component}: ${object}, ${line}`);
    }
  }
}

/**
 * Runs the service's loaders on each container's environment (the start-up loader for the containers, the migration
 * loader for the init container `migrate`); adds to `problems`, returns what passed.
 */
function checkEnvironment(workload, component, objects, problems) {
  const svc = component;
  const loaders = serviceLoaders(svc);
  if (loaders.error) {
    problems.push(loaders.error);
    return [];
  }
  const pod = workload.spec.template.spec;
  const service = pod.containers.find((c) => c.name === svc) ?? pod.containers[0];
  const checks = [];
  for (const init of pod.initContainers ?? []) {
    if (init.name !== 'migrate') {
      problems.push(`init container ${init.name}: not understood by this check (only \`migrate\` is)`);
      continue;
    }
    if (!loaders.migration) {
      problems.push(`init container migrate: services/${svc} exports no migration config loader`);
      continue;
    }
    // The migrations of the version whose pods these are, with the service's own hardening.
    if (init.image !== service.image) {
      problems.push(
        `init container migrate: image ${init.image} is not the service container's (${service.image})`,
      );
    }
    if (JSON.stringify(init.securityContext ?? {}) !== JSON.stringify(service.securityContext ?? {})) {
      problems.push("init container migrate: its securityContext differs from the service container's");
    }
    checks.push({ container: init, loader: loaders.migration, kind: 'init container' });
  }
  for (const container of pod.containers) checks.push({ container, loader: loaders.main, kind: 'container' });
  const passed = [];
  for (const { container, loader, kind } of checks) {
    const before = problems.length;
    const what = `${kind} ${container.name}`;
    const { env, set, problems: envProblems } = containerEnv(pod, container, objects);
    problems.push(...envProblems.map((p) => `${what}: ${p}`));
    let config;
    try {
      config = loader.load(env);
    } catch (err) {
      const list = Array.isArray(err.problems) ? err.problems : [err.message];
      problems.push(...list.map((p) => `${what}: services/${svc} ${loader.name}: ${p}`));
    }
    // With brokers, the start's next check: a SASL mechanism needs its username and password.
    if (config && kind === 'container' && loaders.kafkaSecurity && config.KAFKA_BROKERS?.length) {
      try {
        if ('KAFKA_SASL_MECHANISM' in config) loaders.kafkaSecurity(config);
      } catch (err) {
        const list = Array.isArray(err.problems) ? err.problems : [err.message];
        problems.push(
          ...list.map((p) => `${what}: services/${svc} kafkaSecurity (@flowboard/messaging): ${p}`),
        );
      }
    }
    // (only when the build exports configSchema, the list of what the service reads)
    const ahead = AHEAD_OF_CODE[svc] ?? [];
    for (const k of ahead.filter((k) => loaders.keys.has(k))) {
      problems.push(
        `services/${svc}'s configSchema now reads ${k}: remove it from AHEAD_OF_CODE in scripts/chart-env-check.mjs`,
      );
    }
    const unknown = [...set].filter(
      (k) =>
        loaders.keys.size > 0 &&
        !loaders.keys.has(k) &&
        !ahead.includes(k) &&
        !RUNTIME_VARIABLES.some((re) => re.test(k)),
    );
    if (unknown.length) {
      problems.push(
        `${what}: variables services/${svc}'s configSchema does not know (a typo?): ${unknown.join(', ')}`,
      );
    }
    const network = networkProblems(workload, env, set, objects);
    problems.push(...network.problems.map((p) => `${what}: ${p}`));
    if (problems.length === before)
      passed.push(
        `${what}: ${loader.name} accepts its ${set.size} variables; ` +
          `NetworkPolicies admit its ${network.checked} connection(s)`,
      );
  }
  return passed;
}

// --- network ---------------------------------------------------------------------------------------------

/** Whether a NetworkPolicyPort list admits TCP to a container port (number and name); empty: every port. */
function portsAdmit(ports, number, name) {
  if (!ports?.length) return true;
  return ports.some((p) => {
    if ((p.protocol ?? 'TCP') !== 'TCP') return false;
    if (p.port === undefined) return true;
    if (typeof p.port === 'string' && !/^\d+$/.test(p.port)) return p.port === name;
    return Number(p.port) === number || (p.endPort !== undefined && number >= p.port && number <= p.endPort);
  });
}

/** Whether a peer list admits a pod of this namespace with `labels` (a pod peer), or anything outside (`labels` null). */
function peersAdmit(peers, labels) {
  if (!peers?.length) return true;
  return peers.some((peer) =>
    labels
      ? peer.podSelector && !peer.namespaceSelector && !peer.ipBlock && selects(peer.podSelector, labels)
      : Boolean(peer.ipBlock || peer.namespaceSelector),
  );
}

/** The policies of a direction ('Ingress' or 'Egress') that select a pod; none: that direction is open. */
function policiesOf(objects, labels, type) {
  return objects.networkPolicies.filter(
    (np) => (np.spec.policyTypes ?? ['Ingress']).includes(type) && selects(np.spec.podSelector ?? {}, labels),
  );
}

/**
 * The connections a pod's configuration names (host:port in the variables the chart sets) against the rendered
 * NetworkPolicies: { checked, problems }.
 */
function networkProblems(workload, env, set, objects) {
  const problems = [];
  let checked = 0;
  const labels = workload.spec.template.metadata?.labels ?? {};
  const egress = policiesOf(objects, labels, 'Egress');
  const egressAdmits = (peerLabels, number, name) =>
    egress.length === 0 ||
    egress.some((np) =>
      (np.spec.egress ?? []).some((r) => peersAdmit(r.to, peerLabels) && portsAdmit(r.ports, number, name)),
    );
  const names = new Set();
  for (const key of [...set].sort()) {
    for (const part of String(env[key] ?? '').split(',')) {
      const m = /^\s*(?:[a-z][a-z0-9+.-]*:\/\/)?(?:[^@/\s]*@)?([A-Za-z0-9.-]+):(\d+)(?:[/?#]|\s*$)/.exec(
        part,
      );
      if (!m) continue;
      const [, host, portText] = m;
      const port = Number(portText);
      const what = `${key} (${host}:${port})`;
      checked++;
      names.add(host);
      const service = objects.services.get(host); // the chart names its peers by bare Service name
      if (!service) {
        // Outside the release: the pod's egress must admit the port towards some address.
        if (!egressAdmits(null, port, undefined))
          problems.push(
            `${what}: its NetworkPolicy egress admits no connection to port ${port} outside the release`,
          );
        continue;
      }
      const svcPort = service.spec.ports.find((p) => p.port === port);
      if (!svcPort) {
        problems.push(`${what}: Service ${service.metadata.name} has no port ${port}`);
        continue;
      }
      const targets = objects.deployments.filter((d) =>
        selects({ matchLabels: service.spec.selector ?? {} }, d.spec.template.metadata?.labels ?? {}),
      );
      if (!targets.length)
        problems.push(`${what}: Service ${service.metadata.name} selects no Deployment's pods`);
      for (const target of targets) {
        const targetLabels = target.spec.template.metadata.labels;
        const containerPorts = target.spec.template.spec.containers.flatMap((c) => c.ports ?? []);
        const cp =
          typeof svcPort.targetPort === 'string'
            ? containerPorts.find((p) => p.name === svcPort.targetPort)
            : { containerPort: svcPort.targetPort ?? port };
        if (!cp) {
          problems.push(`${what}: ${target.metadata.name} has no container port ${svcPort.targetPort}`);
          continue;
        }
        if (!egressAdmits(targetLabels, cp.containerPort, cp.name))
          problems.push(
            `${what}: its NetworkPolicy egress admits no connection to ${target.metadata.name}'s pods`,
          );
        for (const np of policiesOf(objects, targetLabels, 'Ingress')) {
          const admitted = (np.spec.ingress ?? []).some(
            (r) => peersAdmit(r.from, labels) && portsAdmit(r.ports, cp.containerPort, cp.name),
          );
          if (!admitted)
            problems.push(
              `${what}: NetworkPolicy ${np.metadata.name} admits no connection from this pod to port ${cp.containerPort}`,
            );
        }
      }
    }
  }
  // Host names need the cluster's DNS.
  if (names.size && [...names].some((h) => !/^[\d.]+$/.test(h)) && egress.length) {
    const dns = egress.some((np) =>
      (np.spec.egress ?? []).some((r) =>
        r.ports?.length
          ? r.ports.some((p) => p.protocol === 'UDP' && (p.port === undefined || Number(p.port) === 53))
          : true,
      ),
    );
    if (!dns) problems.push('its NetworkPolicy egress admits no DNS (UDP 53), yet it connects to host names');
  }
  return { checked, problems };
}

if (failures.length) {
  console.error(`chart-env-check: ${failures.length} problem(s):`);
  for (const f of failures) console.error(`FAIL ${f}`);
  process.exit(1);
}
console.log(
  `chart-env-check: ${sets.map((s) => s.label).join(', ')}: every pod gets the configuration its service requires`,
);
