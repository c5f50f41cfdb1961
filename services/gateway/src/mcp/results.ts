import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { answerJson, type ApiAnswer } from './api-transport';
import type { McpTool } from './tools';

/**
 * The API's answer as the tool's result. A success is the answer itself as structured content (plus the version of
 * a conditional resource); a refusal is a tool error (`isError`) the agent can act on, written for it: a conflict
 * says to read again, a rate limit when to come back, a server error to retry later; the rest quote the problem.
 */
export function toolResult(tool: McpTool, answer: ApiAnswer): CallToolResult {
  if (answer.status >= 200 && answer.status < 300) return success(tool, answer);
  // A refusal is kept with its Idempotency-Key too: the same call gets it again without running.
  const replayed = answer.headers['idempotent-replayed'] === 'true' ? ` ${REPLAYED_REFUSAL}` : '';
  return toolError(refusal(tool, answer) + replayed);
}

const REPLAYED_REFUSAL =
  'This is the answer the same call got before, given again: nothing ran now. If things have changed since, ' +
  'pass a new idempotencyKey to run it again.';

export const toolError = (text: string): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text }],
});

function success(tool: McpTool, answer: ApiAnswer): CallToolResult {
  const replayed = answer.headers['idempotent-replayed'] === 'true';
  const notes = replayed
    ? [
        'This call was made before with the same arguments: this is its first answer again, nothing was done twice. ' +
          'To do it again on purpose, pass a new idempotencyKey.',
      ]
    : [];
  const json = answerJson(answer);
  if (!tool.definition.outputSchema || typeof json !== 'object' || json === null || Array.isArray(json)) {
    const text =
      answer.body.trim() === '' ? (tool.operation.method === 'DELETE' ? 'Deleted.' : 'Done.') : answer.body;
    return { content: [text, ...notes].map((t) => ({ type: 'text', text: t })) };
  }
  const version = tool.answersVersion ? versionOf(answer.headers.etag) : undefined;
  const structured = { ...(json as Record<string, unknown>), ...(version !== undefined ? { version } : {}) };
  return {
    structuredContent: structured,
    // Clients without structured output read the same JSON as text.
    content: [JSON.stringify(structured), ...notes].map((t) => ({ type: 'text', text: t })),
  };
}

/** `"v7-1a2b…"` → 7. */
export function versionOf(etag: string | undefined): number | undefined {
  const match = /^"v(\d{1,15})-[0-9a-f]+"$/.exec(etag ?? '');
  return match ? Number(match[1]) : undefined;
}

function refusal(tool: McpTool, answer: ApiAnswer): string {
  const problem = problemOf(answer);
  const said = [problem.title, problem.detail].filter(Boolean).join(': ');
  const ref = problem.requestId ? ` (request ${problem.requestId})` : '';
  if (answer.status === 412) {
    return (
      `Conflict: the resource changed since you read it, so nothing was written. Read it again (its get tool ` +
      `answers the current version), check that your change still makes sense, and call ${tool.name} again with ` +
      `the new version.${ref}`
    );
  }
  if (answer.status === 429) {
    const after = answer.headers['retry-after'];
    return `Rate limited: ${said || 'too many requests'}. Retry after ${after ?? 'a few'} seconds.${ref}`;
  }
  if (answer.status >= 500) {
    return (
      `The server could not do this now (${answer.status}${said ? ` ${said}` : ''}). Retry later: the same call is ` +
      `safe to repeat.${ref}`
    );
  }
  return `Refused (${answer.status}${said ? ` ${said}` : ''}).${ref}`;
}

interface Problem {
  title?: string;
  detail?: string;
  requestId?: string;
}

function problemOf(answer: ApiAnswer): Problem {
  const json = answerJson(answer);
  if (typeof json !== 'object' || json === null) return {};
  const { title, detail, requestId } = json as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  // The problem's detail repeats its title when there is nothing more to say.
  const shownDetail = text(detail) === text(title) ? undefined : text(detail);
  return {
    ...(text(title) ? { title: text(title) } : {}),
    ...(shownDetail ? { detail: shownDetail } : {}),
    ...(text(requestId) ? { requestId: text(requestId) } : {}),
  };
}
