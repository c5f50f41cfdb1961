import { openApiDocument } from '../api/openapi/document';
import { OPERATIONS } from '../api/resources';
import type { Schema } from '../api/schema';
import { permits, type KeyScope } from '../authz/scopes';
import { generateTools, type LeftOut, type McpTool } from './tools';

/** The tools of this build's API, generated once, the first time they are needed. */
let generated: { tools: McpTool[]; byName: Map<string, McpTool>; leftOut: LeftOut[] } | undefined;

function catalog() {
  if (!generated) {
    const components = openApiDocument().components as {
      schemas: Record<string, Schema>;
      parameters: Record<string, Schema>;
    };
    const { tools, leftOut } = generateTools(OPERATIONS, components);
    generated = { tools, byName: new Map(tools.map((tool) => [tool.name, tool])), leftOut };
  }
  return generated;
}

/** The tools a key of this scope may call: the only ones it is shown. */
export const toolsFor = (scope: KeyScope): McpTool[] =>
  catalog().tools.filter((tool) => permits(scope, tool.scope));

export const toolNamed = (name: string): McpTool | undefined => catalog().byName.get(name);

/** The operations without a tool, and why. */
export const operationsLeftOut = (): readonly LeftOut[] => catalog().leftOut;
