// Integration and end-to-end tests wait on real services (a consumer group join takes seconds).
jest.setTimeout(60_000);
