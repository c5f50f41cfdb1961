import { body, int, nonBlank, pageSchema, resource, str, type ResourceSchemas } from '../schema';

/** The files attached to a story (attachments.routes.ts): their records, a rename, an upload. */
export const attachmentSchemas: ResourceSchemas = {
  responses: {
    Attachment: resource('attachment', ['id', 'fileName', 'sizeInBytes', 'contentType', 'token'], {
      id: int(),
      fileName: str(),
      sizeInBytes: int(),
      contentType: str('Media type.'),
      token: {
        type: 'string',
        pattern: '^[0-9a-f]{32}$',
        description: 'Opaque storage key, never a credential.',
      },
    }),
  },
  pages: { AttachmentPage: pageSchema('Attachment', 'attachments') },
  requests: {
    AttachmentRename: body('attachment', {
      filename: nonBlank(
        undefined,
        'Also accepted as `fileName`. Stored as uploads are: the last path segment, without control characters. ' +
          'Over 200 characters (without the path), or with a NUL, it is a 400 `invalid-field`.',
      ),
    }),
    AttachmentUpload: {
      type: 'object',
      description:
        'One or more file parts (with a `filename`) under any field name: `file` here, `attachment` is usual too. ' +
        'Parts without a filename are form fields and are ignored. A file name is stored as its last path segment ' +
        "without control characters; over 200 characters (without the path), or a NUL in a part's headers or " +
        'file name, is a 400 `invalid-field`.',
      required: ['file'],
      // A part's name sits in its Content-Disposition header, where control characters are malformed (400).
      propertyNames: { pattern: '^[^\\u0000-\\u001f\\u007f]*$' },
      properties: {
        file: { type: 'string', format: 'binary', contentMediaType: 'application/octet-stream' },
      },
      additionalProperties: {
        anyOf: [
          { type: 'string', format: 'binary', contentMediaType: 'application/octet-stream' },
          {
            type: 'array',
            items: { type: 'string', format: 'binary', contentMediaType: 'application/octet-stream' },
          },
        ],
      },
    },
  },
};
