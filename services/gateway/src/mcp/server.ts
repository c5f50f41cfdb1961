import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { permits, scopeName } from '../authz/scopes';
import { BOARD_TEMPLATE, BoardReadError, listBoards, readBoard } from './board';
import type { McpCaller } from './caller';
import { toolNamed, toolsFor } from './catalog';
import { ArgumentError, toolRequest, type Arguments } from './requests';
import { toolError, toolResult } from './results';

/** What every agent is told on connecting: the few rules that keep its writes safe. */
const INSTRUCTIONS = `
Flowboard: kanban projects with phases (board columns) and stories (cards), and their tags, tasks and comments.
Read a board through the resource flowboard://projects/{projectId}/board (phases with their stories, and the change
stream's position), or with the list and get tools. Writes are safe by construction: a change to a story, task,
comment, phase, tag, role or project needs the \`version\` you read it at, and is refused without writing anything
if it changed since (read it again, then retry); creates are done once even if you retry the same call. After a
pause, call streamProjectEvents with after=<position> for what changed meanwhile.
`
  .trim()
  .replace(/\n/g, ' ');

/**
 * An MCP server for one caller: the tools its key may use, generated from the API's declarations (catalog.ts), and
 * the boards it reaches as resources. Every call goes to the API as this caller (caller.api), so what a tool may do
 * is decided where any request's is: the server shows a key only its tools, the API enforces.
 */
export function mcpServer(caller: McpCaller): Server {
  const server = new Server(
    { name: 'flowboard', title: 'Flowboard', version: '1.0.0' },
    { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: toolsFor(caller.scope).map((tool) => tool.definition),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = toolNamed(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    if (!permits(caller.scope, tool.scope)) {
      return toolError(`This API key may not use ${tool.name}: it needs the ${scopeName(tool.scope)} scope.`);
    }
    let apiRequest;
    try {
      apiRequest = toolRequest(tool, (request.params.arguments ?? {}) as Arguments, caller.identity);
    } catch (err) {
      if (err instanceof ArgumentError) return toolError(`Nothing was sent: ${err.message}`);
      throw err;
    }
    return toolResult(tool, await caller.api.send(apiRequest));
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: await listBoards(caller) }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [BOARD_TEMPLATE],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    try {
      return await readBoard(caller, request.params.uri);
    } catch (err) {
      if (err instanceof BoardReadError) throw new McpError(ErrorCode.InvalidParams, err.message);
      throw err;
    }
  });
  return server;
}
