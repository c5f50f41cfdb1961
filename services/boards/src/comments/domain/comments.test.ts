import { parseCommentText, requireCanDeleteComment, requireCanEditComment } from './comments';

describe('comment rules', () => {
  const comment = { authorId: 5 };

  it('only the author may edit', () => {
    expect(() => requireCanEditComment(comment, 5)).not.toThrow();
    expect(() => requireCanEditComment(comment, 6)).toThrow(
      expect.objectContaining({ kind: 'PermissionDenied' }),
    );
  });

  it('the author or an admin may delete', () => {
    expect(() => requireCanDeleteComment(comment, 5, false)).not.toThrow();
    expect(() => requireCanDeleteComment(comment, 6, true)).not.toThrow();
    expect(() => requireCanDeleteComment(comment, 6, false)).toThrow(
      expect.objectContaining({ kind: 'PermissionDenied' }),
    );
  });

  it('text is required', () => {
    expect(() => parseCommentText('')).toThrow(/Missing text/);
    expect(parseCommentText('Looks good')).toBe('Looks good');
  });
});
