import type { IncomingMessage } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { CHANGES_HEADER, DomainError } from '@flowboard/service-kit';
import { filesErrorFrom, readUpstreamJson } from '../../clients/files-proxy';
import type { files as filesProto } from '@flowboard/proto';
import { attachmentDto, attachmentMessageDto, type AttachmentRecord } from '@flowboard/representation';
import { pageOf } from '../../wire/page';
import { contentCoding } from '../../wire/body';
import type { Call } from '../call';
import type { EnrichmentVocabulary } from '../../wire/enrichments';
import { optionalString } from '../../wire/fields';
import { empty, handled, page, resource, type Reply } from '../../wire/respond';
import type { RouteDeps } from './deps';
import { del, get, post, put, resourceOperations } from '../operation';
import { S } from './paths';

/** Headers of a download that reach the caller; everything else the files service sends stays behind. */
const DOWNLOAD_HEADERS = [
  'content-type',
  'content-length',
  'content-disposition',
  'content-range',
  'accept-ranges',
  'last-modified',
  'etag',
];

/** Attachments have no enrichments; `with=everything` is accepted, anything else is 400. */
const ATTACHMENT_ENRICHMENTS: EnrichmentVocabulary = { names: [] };

/** 200 whole, 206 one range, 416 unsatisfiable range: the statuses of a download the caller gets as they are. */
const DOWNLOAD_STATUSES = new Set([200, 206, 416]);

const attachmentReply = (attachment: filesProto.Attachment__Output | null) => {
  if (!attachment) throw new DomainError('Internal', 'files returned no attachment');
  return resource('attachment', attachmentMessageDto(attachment), attachment.version);
};

/**
 * Attachment bytes never pass through the gateway's memory: uploads stream to the files service's internal HTTP
 * port as they arrive, and downloads stream back (design.md, Attachments).
 */
export function attachmentHandlers({ boards, files, filesProxy, membership }: RouteDeps) {
  const internalPath = (call: Call) =>
    `/internal/projects/${call.project.projectId}/stories/${call.id('storyId')}/attachments`;
  const identity = (call: Call) => ({
    userId: call.user.id,
    ...(call.key.id > 0 ? { apiKey: { id: call.key.id, name: call.key.name } } : {}),
    requestId: call.requestId,
  });

  /** Sub-resource check: a missing story is 404 before the body is looked at. */
  const requireStory = (call: Call) =>
    boards.getStory({ project_id: call.project.projectId, story_id: call.id('storyId') });

  const ids = (call: Call) => ({
    project_id: call.project.projectId,
    story_id: call.id('storyId'),
    attachment_id: call.id('attachmentId'),
  });

  return {
    /** The story's attachments by id; `where` is accepted but attachments have no filterable property (§4.2). */
    async list(call: Call): Promise<Reply> {
      await requireStory(call);
      const paging = call.paging();
      const { attachments } = await files.listAttachments({
        project_id: call.project.projectId,
        story_id: call.id('storyId'),
        where: call.query.get('where') ?? '',
      });
      return page('attachment', pageOf(attachments.map(attachmentMessageDto), paging));
    },

    async get(call: Call): Promise<Reply> {
      await requireStory(call);
      call.enrichments(ATTACHMENT_ENRICHMENTS);
      const { attachment } = await files.getAttachment(ids(call));
      return attachmentReply(attachment);
    },

    /**
     * `filename` (or `fileName`) renames; files sanitises it with the upload's rules. Other fields are ignored,
     * and a body without a name answers the attachment unchanged.
     */
    async rename(call: Call): Promise<Reply> {
      await requireStory(call);
      // A missing attachment is 404 even when the body is unreadable (docs/compat.md §3.3 order).
      const fields = await call
        .body()
        .then((body) => body.object())
        .catch(async (err: unknown) => {
          await files.getAttachment(ids(call));
          throw err;
        });
      call.enrichments(ATTACHMENT_ENRICHMENTS);
      const fileName = optionalString(fields, 'filename', 'fileName');
      const expected = call.expectedVersion();
      if (fileName !== undefined) {
        const { attachment } = await files.renameAttachment({
          ...ids(call),
          file_name: fileName,
          expected_version: expected,
        });
        return attachmentReply(attachment);
      }
      // Nothing to change: still, a stale If-Match is refused as it would be for a rename.
      const { attachment } = await files.getAttachment(ids(call));
      if (expected !== 0 && attachment && attachment.version !== expected) {
        throw new DomainError(
          'PreconditionFailed',
          `Attachment ${attachment.id} is at version ${attachment.version}, not ${expected}.`,
        );
      }
      return attachmentReply(attachment);
    },

    /** Removes the row and the stored object (files logs an object it could not remove for a sweeper). */
    async remove(call: Call): Promise<Reply> {
      await requireStory(call);
      await files.deleteAttachment({ ...ids(call), expected_version: call.expectedVersion() });
      return empty();
    },

    /**
     * Multipart, one or more files → the page of the created attachments (docs/compat.md §5.6). The project's
     * account and storage limit (one membership call) go along, so files can hold the upload to the quota
     * (402).
     */
    async upload(call: Call): Promise<Reply> {
      await requireStory(call);
      if (!/^multipart\/form-data\s*(;|$)/i.test(call.req.headers['content-type'] ?? '')) {
        throw new DomainError('InvalidArgument', 'Attachments are uploaded as multipart/form-data.', {
          problem: 'invalid-body',
        });
      }
      // Uploads stream through undecoded, so only identity is accepted (compressed files are sent as they are).
      if (contentCoding(call.req.headers['content-encoding']) !== 'identity')
        throw new DomainError(
          'UnsupportedMediaType',
          'Attachments are uploaded without a Content-Encoding.',
          {
            problem: 'unsupported-media-type',
          },
        );
      const paging = call.paging();
      const account = await membership.getProjectAccount({ project_id: call.project.projectId });
      const forwardAs = {
        ...identity(call),
        account: { accountId: account.account_id, storageLimitBytes: account.storage_limit_bytes },
      };
      const onResponse = async (upstream: IncomingMessage) => {
        const body = await readUpstreamJson(upstream);
        const changes = upstream.headers[CHANGES_HEADER];
        if (typeof changes === 'string') call.res.setHeader(CHANGES_HEADER, changes);
        if (upstream.statusCode !== 200) throw filesErrorFrom(upstream.statusCode ?? 502, body);
        return page('attachment', pageOf(attachmentItems(body).map(attachmentDto), paging));
      };
      return filesProxy.forward(
        call.req,
        call.res,
        internalPath(call),
        forwardAs,
        onResponse,
        call.streamedBody,
      );
    },

    /**
     * The bytes, with the attachment's type, `Content-Disposition` and `nosniff` (docs/compat.md §6). One
     * byte range (`Range: bytes=…`) is answered 206 with `Content-Range`, an unsatisfiable one 416; several
     * ranges are ignored (200, whole). Standard HTTP on raw content, not an API resource (design.md,
     * Attachments).
     */
    async download(call: Call): Promise<Reply> {
      await requireStory(call);
      const path = `${internalPath(call)}/${call.id('attachmentId')}/content`;
      return filesProxy.forward(call.req, call.res, path, identity(call), async (upstream) => {
        if (!DOWNLOAD_STATUSES.has(upstream.statusCode ?? 0))
          throw filesErrorFrom(upstream.statusCode ?? 502, await readUpstreamJson(upstream));
        streamDownload(upstream, call);
        await pipeline(upstream, call.res).catch(() => undefined); // a caller hanging up is not our error
        return handled();
      });
    },
  };
}

function streamDownload(upstream: IncomingMessage, call: Call): void {
  call.res.status(upstream.statusCode ?? 200);
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

/** This resource's operations, each declared once: the router and the OpenAPI document are built from them. */
export const attachmentOperations = resourceOperations('Attachments', 'attachments', attachmentHandlers, [
  get(`${S}/attachments`, 'listAttachments', 'List attachments', {
    cursor: true,
    access: 'Read',
    ok: { page: 'Attachment' },
    handler: 'list',
  }),
  post(`${S}/attachments`, 'uploadAttachments', 'Upload attachments', {
    access: 'ReadWrite',
    body: 'AttachmentUpload',
    multipart: true,
    ok: { page: 'Attachment' },
    errors: [402, 413],
    description:
      'Answers a page of the attachments created. Over the storage limit \u2192 402 and nothing is stored.',
    handler: 'upload',
  }),
  get(`${S}/attachments/:attachmentId`, 'getAttachment', 'Get an attachment', {
    access: 'Read',
    conditional: true,
    ok: { one: 'Attachment' },
    handler: 'get',
  }),
  put(`${S}/attachments/:attachmentId`, 'renameAttachment', 'Rename an attachment', {
    access: 'ReadWrite',
    conditional: true,
    body: 'AttachmentRename',
    ok: { one: 'Attachment' },
    handler: 'rename',
  }),
  del(`${S}/attachments/:attachmentId`, 'deleteAttachment', 'Delete an attachment', {
    access: 'ReadWrite',
    conditional: true,
    ok: 'empty',
    handler: 'remove',
  }),
  get(`${S}/attachments/:attachmentId/content`, 'downloadAttachment', 'Download an attachment', {
    access: 'Read',
    ok: 'bytes',
    addition: true,
    description:
      "The bytes, with the attachment's `contentType`, `Content-Disposition: attachment` and " +
      '`X-Content-Type-Options: nosniff`.',
    handler: 'download',
  }),
]);
