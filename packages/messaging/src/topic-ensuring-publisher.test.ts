import { TopicEnsuringPublisher } from './topic-ensuring-publisher';

describe('TopicEnsuringPublisher', () => {
  const setup = () => {
    const publish = jest.fn().mockResolvedValue(undefined);
    const ensure = jest.fn().mockResolvedValue(undefined);
    const publisher = new TopicEnsuringPublisher(
      { publish, disconnect: jest.fn().mockResolvedValue(undefined) },
      ensure,
    );
    return { publish, ensure, publisher };
  };
  const msg = [{ key: '1', value: '{}' }];

  it('ensures a topic once, before its first publish', async () => {
    const { publish, ensure, publisher } = setup();
    await publisher.publish('t', msg);
    await publisher.publish('t', msg);
    expect(ensure).toHaveBeenCalledTimes(1);
    expect(ensure).toHaveBeenCalledWith(['t']);
    expect(publish).toHaveBeenCalledTimes(2);
  });

  it('ensures again after a failed publish', async () => {
    const { publish, ensure, publisher } = setup();
    publish.mockRejectedValueOnce(new Error('broker down'));
    await expect(publisher.publish('t', msg)).rejects.toThrow('broker down');
    await publisher.publish('t', msg);
    expect(ensure).toHaveBeenCalledTimes(2);
  });

  it('does not publish when the topic cannot be ensured', async () => {
    const { publish, ensure, publisher } = setup();
    ensure.mockRejectedValueOnce(new Error('broker down'));
    await expect(publisher.publish('t', msg)).rejects.toThrow('broker down');
    expect(publish).not.toHaveBeenCalled();
    await publisher.publish('t', msg);
    expect(publish).toHaveBeenCalledTimes(1);
  });
});

describe('TopicEnsuringPublisher.close', () => {
  it('fails a publish stuck on an unreachable broker, and every later one', async () => {
    const publisher = new TopicEnsuringPublisher(
      {
        publish: () => new Promise<void>(() => undefined),
        disconnect: jest.fn().mockResolvedValue(undefined),
      },
      () => new Promise<void>(() => undefined), // never connects
    );
    const stuck = publisher.publish('t', [{ key: '1', value: '{}' }]);
    publisher.close();
    await expect(stuck).rejects.toThrow('publisher closed');
    await expect(publisher.publish('t', [{ key: '1', value: '{}' }])).rejects.toThrow('publisher closed');
  });
});
