import type { ReadResourceResult, Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { permits, reachesProject, type OperationScope } from '../authz/scopes';
import { answerJson, type ApiAnswer } from './api-transport';
import type { McpCaller } from './caller';

/**
 * The boards as MCP resources: one per project the key reaches, `flowboard://projects/{id}/board`, read as the
 * project's phases with their stories (one API call, `GET P/phases?with=stories`) and the change stream's position
 * (a long-poll with `wait=0`), so an agent that comes back after a pause catches up with the events tool from
 * `after=<position>` instead of reading the board again.
 */
export const BOARD_TEMPLATE: ResourceTemplate = {
  uriTemplate: 'flowboard://projects/{projectId}/board',
  name: 'board',
  title: "A project's board",
  description:
    "The project's phases in board order, each with its stories, and `position`: the change stream's position " +
    'as of this read (pass it as `after` to the streamProjectEvents tool to get the changes since).',
  mimeType: 'application/json',
};

const BOARD_URI = /^flowboard:\/\/projects\/(\d{1,15})\/board$/;
export const boardUri = (projectId: number): string => `flowboard://projects/${projectId}/board`;

/** Reading a board is reading the board's stories. */
const READS_BOARD: OperationScope = { group: 'stories', write: false };
/** The API's largest page: one call lists every project, or every phase. */
const ALL = 'pageSize=1000';

/** A read the API refused: the resource request fails with its problem. */
export class BoardReadError extends Error {}

export async function listBoards(caller: McpCaller): Promise<Resource[]> {
  if (!permits(caller.scope, READS_BOARD)) return [];
  const answer = await caller.api.send({ method: 'GET', path: `/api/v1/projects?${ALL}` });
  const page = expectJson(answer, 'the projects') as { items?: Array<{ id: number; name: string }> };
  return (page.items ?? [])
    .filter((project) => reachesProject(caller.scope, project.id))
    .map((project) => ({
      uri: boardUri(project.id),
      name: `board-${project.id}`,
      title: `${project.name}: board`,
      description: `The board of project ${project.id} (${project.name}), with the change stream's position.`,
      mimeType: 'application/json',
    }));
}

export async function readBoard(caller: McpCaller, uri: string): Promise<ReadResourceResult> {
  const projectId = Number(BOARD_URI.exec(uri)?.[1] ?? NaN);
  if (!Number.isSafeInteger(projectId)) throw new BoardReadError(`No such resource: ${uri}`);
  const P = `/api/v1/projects/${projectId}`;
  // The position first: a change made between the two reads is then in the board and also after the position
  // (seen twice, harmless), never in neither.
  const events = await caller.api.send({ method: 'GET', path: `${P}/events?wait=0` });
  const phases = await caller.api.send({ method: 'GET', path: `${P}/phases?with=stories&${ALL}` });
  const board = expectJson(phases, `the board of project ${projectId}`) as { items?: unknown[] };
  // Without a change stream (a gateway without Kafka answers 503) the board is still worth reading.
  const position =
    events.status === 200
      ? ((answerJson(events) as { position?: string } | undefined)?.position ?? null)
      : null;
  return {
    contents: [
      {
        uri,
        mimeType: 'application/json',
        text: JSON.stringify({ projectId, position, phases: board.items ?? [] }),
      },
    ],
  };
}

function expectJson(answer: ApiAnswer, what: string): Record<string, unknown> {
  const json = answerJson(answer);
  if (answer.status !== 200 || typeof json !== 'object' || json === null) {
    const problem = (json ?? {}) as { title?: string; detail?: string };
    const said = [problem.title, problem.detail].filter(Boolean).join(': ');
    throw new BoardReadError(`Could not read ${what} (${answer.status}${said ? ` ${said}` : ''}).`);
  }
  return json as Record<string, unknown>;
}
