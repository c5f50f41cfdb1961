import { uniqueSuffix } from '@flowboard/testing';
import { Load, lostWrites } from './load';
import { helmUpgrade, imageTagArgs, mailCounts, pods, sleep } from './support';

/**
 * `helm upgrade` to newly built images of all six services while clients read and write through the gateway's
 * Service. Readiness, the preStop pause, each server's drain, surge-before-remove and the PodDisruptionBudget must
 * together make the rollout invisible: no failed request, no lost or doubled e-mail, no lost write.
 * scripts/cluster-test.sh builds the new images (a new version label: new image ids) into
 * FLOWBOARD_CLUSTER_UPGRADE_IMAGES before this runs.
 */
const UPGRADE_IMAGES = process.env.FLOWBOARD_CLUSTER_UPGRADE_IMAGES;

jest.setTimeout(20 * 60_000);

describe('rolling upgrade under load', () => {
  it('rolls every service to new images with zero failed requests and every e-mail exactly once', async () => {
    if (!UPGRADE_IMAGES)
      throw new Error('FLOWBOARD_CLUSTER_UPGRADE_IMAGES is not set (run npm run test:cluster)');
    const before = await pods();
    const load = await Load.prepare({ workers: 6, rate: 30, inviteePrefix: `upgrade-${uniqueSuffix()}` });
    load.start();
    await sleep(10_000); // steady state first
    const t0 = Date.now();
    await helmUpgrade(imageTagArgs(UPGRADE_IMAGES));
    const rolloutSeconds = (Date.now() - t0) / 1000;
    await sleep(10_000); // and after
    const report = await load.stop();
    const after = await pods();
    const counts = await mailCounts(report.invitees);
    const received = [...counts.values()].reduce((a, b) => a + b, 0);
    const lost = await lostWrites(report);

    console.log(
      [
        `rolling upgrade: ${before.length} pods replaced by ${after.length} in ${rolloutSeconds.toFixed(0)} s`,
        `requests sent: ${report.sent} in ${report.seconds.toFixed(0)} s; failed: ${report.failed}`,
        `e-mails expected: ${report.invitees.length}; received: ${received}`,
        `writes checked: ${report.stories.size}; lost: ${lost.length}`,
      ].join('\n'),
    );
    const oldNames = new Set(before.map((p) => p.name));
    expect(after.filter((p) => oldNames.has(p.name))).toEqual([]); // every pod was replaced
    expect(after.every((p) => p.ready)).toBe(true);
    expect(report.failures).toEqual([]);
    expect(report.failed).toBe(0);
    expect(report.sent).toBeGreaterThan(500);
    expect([...counts].filter(([, n]) => n !== 1)).toEqual([]);
    expect(lost).toEqual([]);
  });
});
