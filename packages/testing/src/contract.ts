import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';

/**
 * Checks real responses against an OpenAPI 3.1 document (the gateway's `/api/v1/openapi.json`): finds the
 * documented operation for a method and path, picks the response for the status (or `default`) and validates a
 * JSON body against its schema with Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1).
 */
type Json = Record<string, unknown>;

interface Template {
  path: string;
  segments: Array<string | null>; // null: a `{param}`
  literals: number;
}

export interface ResponseToCheck {
  method: string;
  /** The request target as sent: query and a `.json`/`.xml` suffix are ignored. */
  path: string;
  status: number;
  contentType: string | null;
  /** The parsed JSON body (undefined when the body is not JSON). */
  json: unknown;
  /** The raw body, for XML: its root element must be the one the schema names (`xml.name`). */
  text?: string;
}

export class OpenApiContract {
  private readonly templates: Template[];
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly document: Json) {
    const paths = (document.paths ?? {}) as Record<string, Json>;
    this.templates = Object.keys(paths).map((path) => {
      const segments = split(path).map((s) => (/^\{\w+\}$/.test(s) ? null : s.toLowerCase()));
      return { path, segments, literals: segments.filter((s) => s !== null).length };
    });
    // OpenAPI's own keywords in schemas are annotations here; refs point into one schema holding them all.
    this.ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, validateFormats: false });
    this.ajv.addVocabulary(['xml', 'example', 'externalDocs', 'discriminator']);
    const schemas = ((document.components as Json | undefined)?.schemas ?? {}) as Json;
    this.ajv.addSchema({ $id: SCHEMAS_ID, $defs: rewriteRefs(schemas) });
  }

  /** The documented path template for a concrete path (the most literal one wins), or undefined. */
  template(path: string): string | undefined {
    const segments = split(stripTarget(path)).map((s) => s.toLowerCase());
    const hits = this.templates.filter(
      (t) =>
        t.segments.length === segments.length && t.segments.every((s, i) => s === null || s === segments[i]),
    );
    return hits.sort((a, b) => b.literals - a.literals)[0]?.path;
  }

  /** Every way the response disagrees with the document; empty when it conforms. */
  check(response: ResponseToCheck): string[] {
    const method = response.method.toLowerCase();
    if (method === 'head' || method === 'options') return [];
    const where = `${response.method} ${response.path} → ${response.status}`;
    const template = this.template(response.path);
    const operation = template
      ? (((this.document.paths as Json)[template] as Json)[method] as Json | undefined)
      : undefined;
    if (!operation) {
      // Probing an unknown route or method is fine as long as the answer is the documented 404/405 problem.
      if (response.status === 404 || response.status === 405) {
        return response.json === undefined
          ? this.checkXmlRoot(where, 'Problem', response)
          : this.validate(where, 'Problem', response);
      }
      return [`${where}: ${template ? `method not documented for ${template}` : 'path not documented'}`];
    }
    const responses = operation.responses as Json;
    let documented = (responses[String(response.status)] ?? responses.default) as Json | undefined;
    if (!documented) return [`${where}: status ${response.status} not documented for ${method} ${template}`];
    if (typeof documented.$ref === 'string') documented = this.resolve(documented.$ref);
    const content = documented.content as Record<string, Json> | undefined;
    const mediaType = (response.contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (!content) {
      return response.json === undefined && !mediaType ? [] : [`${where}: documented without a body`];
    }
    const media = content[mediaType] ?? content['*/*'];
    if (!media)
      return [`${where}: media type ${mediaType} not documented (${Object.keys(content).join(', ')})`];
    const schemaRef = (media.schema as Json | undefined)?.$ref;
    if (typeof schemaRef !== 'string') return [];
    const schemaName = schemaRef.replace('#/components/schemas/', '');
    return response.json === undefined
      ? this.checkXmlRoot(where, schemaName, response)
      : this.validate(where, schemaName, response);
  }

  /** XML bodies: the root element is the one the schema names (the content itself is not validated). */
  private checkXmlRoot(where: string, schemaName: string, response: ResponseToCheck): string[] {
    const type = response.contentType ?? '';
    if (!/xml/i.test(type) || response.text === undefined) return [];
    const schemas = (this.document.components as Json).schemas as Record<string, Json>;
    const expected = (schemas[schemaName]?.xml as Json | undefined)?.name;
    const root = /^\s*(?:<\?xml[^>]*\?>)?\s*<([A-Za-z][\w.-]*)/.exec(response.text)?.[1];
    if (typeof expected !== 'string' || root === expected) return [];
    return [`${where}: XML root <${root ?? '?'}>, the document says <${expected}> (${schemaName})`];
  }

  /** Validates a value against one of the document's component schemas; compiling it on first use. */
  validateSchema(schemaName: string, value: unknown): string[] {
    return this.validate('value', schemaName, { json: value } as ResponseToCheck);
  }

  private validate(where: string, schemaName: string, response: ResponseToCheck): string[] {
    let validator = this.validators.get(schemaName);
    if (!validator) {
      validator = this.ajv.getSchema(`${SCHEMAS_ID}#/$defs/${schemaName}`);
      if (!validator) return [`${where}: no schema ${schemaName} in the document`];
      this.validators.set(schemaName, validator);
    }
    if (validator(response.json)) return [];
    return (validator.errors ?? []).map(
      (e) => `${where}: ${schemaName}${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
    );
  }

  private resolve(pointer: string): Json {
    return pointer
      .replace(/^#\//, '')
      .split('/')
      .reduce<Json>((node, key) => node[key] as Json, this.document);
  }
}

const SCHEMAS_ID = 'urn:flowboard:openapi:schemas';

function rewriteRefs(node: unknown): Json {
  return JSON.parse(
    JSON.stringify(node).replaceAll('"#/components/schemas/', `"${SCHEMAS_ID}#/$defs/`),
  ) as Json;
}

const split = (path: string): string[] => path.split('/').filter(Boolean);

/** Path only: no scheme/host, query, or `.json`/`.xml` suffix (which the gateway strips before routing). */
function stripTarget(target: string): string {
  const path = target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').split(/[?#]/)[0] ?? '';
  return decodeURI(path).replace(/\.(json|xml)\/*$/i, '');
}

/** Fetches the document from a gateway once per base URL and answers a checker for responses. */
const contracts = new Map<string, Promise<OpenApiContract>>();
export function gatewayContract(baseUrl: string): Promise<OpenApiContract> {
  let contract = contracts.get(baseUrl);
  if (!contract) {
    contract = fetch(`${baseUrl}/api/v1/openapi.json`).then(async (res) => {
      if (res.status !== 200) throw new Error(`GET /api/v1/openapi.json answered ${res.status}`);
      return new OpenApiContract((await res.json()) as Json);
    });
    contracts.set(baseUrl, contract);
  }
  return contract;
}
