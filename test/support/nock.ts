// nock (fakes GitHub's API for the action's tests by intercepting the global fetch). nock 15
// calls Promise.withResolvers, which Node 22 has and Node 20 does not: supply it first.
if (typeof (Promise as { withResolvers?: unknown }).withResolvers !== 'function') {
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value<T>(this: PromiseConstructor) {
      let resolve!: (value: T | PromiseLike<T>) => void;
      let reject!: (reason?: unknown) => void;
      const promise = new this<T>((res, rej) => { resolve = res; reject = rej; });
      return { promise, resolve, reject };
    },
  });
}
const { default: nock } = await import('nock');
export default nock;
