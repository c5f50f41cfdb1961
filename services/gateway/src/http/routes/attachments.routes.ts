import type { IncomingMessage } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { DomainError } from '@flowboard/service-kit';
import { filesErrorFrom, readUpstreamJson } from '../../clients/files-proxy';
import { attachmentDto, type AttachmentRecord } from '../../representation/attachment.dto';
import { pageOf } from '../../representation/page';
import type { Call } from '../call';
import { handled, page, type Reply } from '../respond';
import type { RouteDeps } from './deps';

/** Headers of a download that reach the caller; everything else the files service sends stays behind. */
const DOWNLOAD_HEADERS = ['content-type', 'content-length', 'content-disposition', 'last-modified', 'etag'];

/**
 * Attachment bytes never pass through the gateway's memory: uploads stream to the files service's internal HTTP
 * port as they arrive, and downloads stream back (design.md, Attachments).
 */
export function attachmentHandlers({ boards, filesProxy }: RouteDeps) {
  const internalPath = (call: Call) =>
    `/internal/projects/${call.project.projectId}/stories/${call.id('storyId')}/attachments`;
  const identity = (call: Call) => ({ userId: call.user.id, requestId: call.requestId });

  /** Sub-resource check: a missing story is 404 before the body is looked at. */
  const requireStory = (call: Call) => boards.getStory(call.project.projectId, call.id('storyId'));

  return {
    /** Multipart, one or more files → the page of the created attachments (api-compat §5.6). */
    async upload(call: Call): Promise<Reply> {
      await requireStory(call);
      if (!/^multipart\/form-data\s*(;|$)/i.test(call.req.headers['content-type'] ?? '')) {
        throw new DomainError('InvalidArgument', 'Attachments are uploaded as multipart/form-data.', {
          problem: 'invalid-body',
        });
      }
      const paging = call.paging();
      return filesProxy.forward(call.req, call.res, internalPath(call), identity(call), async (upstream) => {
        const body = await readUpstreamJson(upstream);
        if (upstream.statusCode !== 200) throw filesErrorFrom(upstream.statusCode ?? 502, body);
        return page('attachment', pageOf(attachmentItems(body).map(attachmentDto), paging));
      });
    },

    /** The bytes, with the attachment's type, `Content-Disposition` and `nosniff` (api-compat §6). */
    async download(call: Call): Promise<Reply> {
      await requireStory(call);
      const path = `${internalPath(call)}/${call.id('attachmentId')}/content`;
      return filesProxy.forward(call.req, call.res, path, identity(call), async (upstream) => {
        if (upstream.statusCode !== 200)
          throw filesErrorFrom(upstream.statusCode ?? 502, await readUpstreamJson(upstream));
        streamDownload(upstream, call);
        await pipeline(upstream, call.res).catch(() => undefined); // a caller hanging up is not our error
        return handled();
      });
    },
  };
}

function streamDownload(upstream: IncomingMessage, call: Call): void {
  call.res.status(200);
  for (const name of DOWNLOAD_HEADERS) {
    const value = upstream.headers[name];
    if (value !== undefined) call.res.setHeader(name, value);
  }
  call.res.setHeader('X-Content-Type-Options', 'nosniff');
}

function attachmentItems(body: unknown): AttachmentRecord[] {
  const items = (body as { items?: unknown } | null)?.items;
  if (!Array.isArray(items)) throw new DomainError('Internal', 'The file service answered without items');
  return items as AttachmentRecord[];
}
