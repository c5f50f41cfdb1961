import { makeCreateBoard } from '../../board/application/create-board';
import { makeCreateStory } from '../../stories/application/create-story';
import { newStoryCommand as command, fakeStore, rejection } from '../../testing/in-memory-store';
import { makeCreateComment } from './create-comment';
import { makeDeleteComment } from './delete-comment';
import { makeUpdateComment } from './update-comment';

describe('Comments', () => {
  async function withComment() {
    const fake = fakeStore();
    await makeCreateBoard(fake.store)(1);
    const story = await makeCreateStory(fake.store)(command({ projectId: 1 }));
    const comment = await makeCreateComment(fake.store)({
      projectId: 1,
      storyId: story.id,
      text: 'hi',
      callerId: 5,
    });
    return { ...fake, story, comment };
  }

  it('only the author may edit', async () => {
    const { store, story, comment } = await withComment();
    const update = makeUpdateComment(store);
    const key = { projectId: 1, storyId: story.id, commentId: comment.id };
    expect((await rejection(update({ ...key, text: 'x', callerId: 6 }))).kind).toBe('PermissionDenied');
    expect((await update({ ...key, text: 'edited', callerId: 5 })).text).toBe('edited');
  });

  it('the author or an admin may delete; others are refused', async () => {
    const { store, story, comment, comments } = await withComment();
    const remove = makeDeleteComment(store);
    const key = { projectId: 1, storyId: story.id, commentId: comment.id };
    expect((await rejection(remove({ ...key, callerId: 6, isAdmin: false }))).kind).toBe('PermissionDenied');
    await remove({ ...key, callerId: 6, isAdmin: true });
    expect(comments).toHaveLength(0);
    expect((await rejection(remove({ ...key, callerId: 5, isAdmin: false }))).kind).toBe('NotFound');
  });
});
