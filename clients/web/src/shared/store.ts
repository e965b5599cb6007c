/**
 * The SDK's state in IndexedDB, shared by the page and its service worker (same origin, same
 * database): the installation id, what was last registered, the page's configuration (so the
 * worker can report and re-register with no page open) and the worker's outbox of reports.
 */
const DATABASE = 'pns-web-sdk';
const STORE = 'state';

let opened: Promise<IDBDatabase> | undefined;

function database(): Promise<IDBDatabase> {
  opened ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => {
      opened = undefined;
      reject(request.error ?? new Error('IndexedDB could not be opened.'));
    };
  });
  return opened;
}

function done<T>(request: IDBRequest<T>, transaction: IDBTransaction): Promise<T> {
  return new Promise((resolve, reject) => {
    transaction.oncomplete = () => resolve(request.result);
    transaction.onerror = transaction.onabort = () => reject(transaction.error ?? request.error ?? new Error('IndexedDB transaction failed.'));
  });
}

export async function read<T>(key: string): Promise<T | undefined> {
  const transaction = (await database()).transaction(STORE, 'readonly');
  return done(transaction.objectStore(STORE).get(key), transaction) as Promise<T | undefined>;
}

/**
 * Reads, changes and writes one key in a single transaction, so the page and the worker (or two
 * events of the worker) never overwrite each other's change. `change` returns the new value.
 */
export async function update<T>(key: string, change: (current: T | undefined) => T): Promise<T> {
  const transaction = (await database()).transaction(STORE, 'readwrite');
  const store = transaction.objectStore(STORE);
  let next: T | undefined;
  const get = store.get(key);
  get.onsuccess = () => {
    next = change(get.result as T | undefined);
    store.put(next, key);
  };
  await done(get, transaction);
  return next as T;
}

export const write = <T>(key: string, value: T) => update<T>(key, () => value);
