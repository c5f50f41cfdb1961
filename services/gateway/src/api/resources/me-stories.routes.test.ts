import { ownedPosition } from './me-stories.routes';

describe('/me/stories cursor position', () => {
  it('is (story id, project id): story ids are numbered per project', () => {
    expect(ownedPosition(0)).toEqual({ after_id: 0, after_project_id: 0 });
    expect(ownedPosition('12:7')).toEqual({ after_id: 12, after_project_id: 7 });
  });

  it("refuses another list's position with a 400", () => {
    for (const after of [5, '12', '12:', 'a:7', '1:2:3'])
      expect(() => ownedPosition(after)).toThrow(
        expect.objectContaining({ kind: 'InvalidArgument', problem: 'invalid-parameter' }),
      );
  });
});
