import { loadBoardsProto, loadFilesProto, loadMembershipProto, loadWebhooksProto } from '@flowboard/proto';
import { retryableMethods } from '@flowboard/service-kit';

// The retry policy comes from the protos' `option idempotency_level`. A read that lost its option would lose its
// retries without any other test noticing; so every read by name declares itself free of side effects.
const boards = loadBoardsProto().flowboard.boards.v1;
const services = {
  'boards stories': boards.StoriesService.service,
  'boards phases': boards.PhasesService.service,
  'boards tags': boards.TagsService.service,
  'boards tasks': boards.TasksService.service,
  'boards comments': boards.CommentsService.service,
  'boards history': boards.HistoryService.service,
  membership: loadMembershipProto().flowboard.membership.v1.MembershipService.service,
  files: loadFilesProto().flowboard.files.v1.FilesService.service,
  webhooks: loadWebhooksProto().flowboard.webhooks.v1.WebhooksService.service,
};

/** The writes that may retry: a repeat of the call changes nothing more than the first did. */
const IDEMPOTENT_WRITES: Record<string, string[]> = {
  // A second call returns the phases the first made (see its comment in the proto).
  'boards phases': ['CreateBoard'],
  // It sets the masked fields to the values sent.
  webhooks: ['UpdateWebhook'],
};

describe.each(Object.entries(services))('%s proto', (label, service) => {
  const methods = Object.values(service).map((m) => m.path.split('/')[2]!);

  it('marks every Get, List and Batch read retryable', () => {
    const reads = methods.filter((name) => /^(Get|List|Batch)/.test(name));
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.filter((name) => !retryableMethods(service).includes(name))).toEqual([]);
  });

  it('never marks a create, delete, add, remove, set or reorder retryable, unless it says why in the proto', () => {
    const writes = retryableMethods(service).filter((name) =>
      /^(Create|Delete|Add|Remove|Set|Reorder|Accept|Update|SignUp)/.test(name),
    );
    expect(writes).toEqual(IDEMPOTENT_WRITES[label] ?? []);
  });
});
