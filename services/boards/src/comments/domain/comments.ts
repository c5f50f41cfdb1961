import { DomainError } from '@flowboard/service-kit';

/** Comment rules (spec "Comment", docs/compat.md §5.6). */

export const COMMENT_TEXT_LIMIT = 100_000;

/** `text`: required (blank counts as missing), at most 100,000 characters, no NUL. */
export function parseCommentText(input: string | undefined | null): string {
  const value = input ?? '';
  const invalid = (message: string) =>
    new DomainError('InvalidArgument', message, { problem: 'invalid-field' });
  if (value.trim() === '') throw invalid('Missing text: a comment needs a text.');
  if (value.includes('\u0000')) throw invalid('Invalid text: must not contain NUL characters.');
  if ([...value].length > COMMENT_TEXT_LIMIT)
    throw invalid(`Invalid text: must be at most ${COMMENT_TEXT_LIMIT} characters.`);
  return value;
}

/** Only the author may edit a comment (spec "Comments", docs/compat.md §5.6). */
export function requireCanEditComment(comment: { authorId: number }, caller: number): void {
  if (comment.authorId !== caller)
    throw new DomainError('PermissionDenied', 'Only the author of a comment may change it.');
}

/** The author or a project admin may delete a comment. */
export function requireCanDeleteComment(
  comment: { authorId: number },
  caller: number,
  isAdmin: boolean,
): void {
  if (!isAdmin && comment.authorId !== caller)
    throw new DomainError(
      'PermissionDenied',
      'Only the author of a comment or a project admin may delete it.',
    );
}
