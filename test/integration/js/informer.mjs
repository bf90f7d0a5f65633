// informer.mjs: one @kubernetes/client-node 1.4 informer on a namespace's
// ConfigMaps, driven by test/integration/js_informer_test.py.
//
// Usage: node informer.mjs SERVER NAMESPACE [KUBECONFIG]
//   (SERVER: http://127.0.0.1:PORT; with KUBECONFIG, a kubeconfig file
//   whose current context gives the server, its CA and the user's
//   client certificate or token, as a controller's would, and SERVER is
//   ignored)
//
// It prints one JSON object per line on stdout:
//   {"ev":"list","rv":"N","n":K}          the informer listed (K items at N)
//   {"ev":"connect"}                      the informer (re)starts a watch
//   {"ev":"add|update|delete","name":..,"rv":..}   a cache change
//   {"ev":"error","message":..,"statusCode":..}    the informer stopped
//   {"ev":"restart"}                      start() again after an error
//   {"ev":"state","id":ID,"rv":..,"items":{name:rv}}   answer to "state ID"
// and reads commands on stdin, one per line: "state ID" prints the cache
// (list()) and the informer's latestResourceVersion(); end of input stops
// the informer and exits 0.
//
// Restart on error: client-node's ListWatch re-watches by itself when a
// stream ends cleanly and relists on 410 (an ERROR event with code 410 or
// an HTTP 410), but on any other error (connection refused or reset, a 429
// or 500, a failed LIST) it calls the "error" handlers and stops for good.
// As the client-node README's informer example and real controllers do,
// the "error" handler calls informer.start() again after a delay (here a
// backoff from 200 ms doubling to 2 s); the informer keeps its
// resourceVersion, so the restart re-watches from it (and relists only if
// the server answers 410).
import { createInterface } from 'node:readline';
import * as k8s from '@kubernetes/client-node';

const [server, namespace, kubeconfig] = process.argv.slice(2);
if (!server || !namespace) {
    console.error('usage: node informer.mjs SERVER NAMESPACE');
    process.exit(2);
}

function emit(obj) {
    process.stdout.write(JSON.stringify(obj) + '\n');
}

// client-node 1.x refuses an http:// server unless skipTLSVerify is set
// ("HTTP protocol is not allowed when skipTLSVerify is not set or false").
const kc = new k8s.KubeConfig();
if (kubeconfig) {
    kc.loadFromFile(kubeconfig);
} else {
    kc.loadFromOptions({
        clusters: [{ name: 'ringwatch', server, skipTLSVerify: true }],
        users: [{ name: 'anonymous' }],
        contexts: [{ name: 'ringwatch', cluster: 'ringwatch', user: 'anonymous' }],
        currentContext: 'ringwatch',
    });
}
const api = kc.makeApiClient(k8s.CoreV1Api);

let delay = 200; // ms before the next start() after an error

async function listFn() {
    const list = await api.listNamespacedConfigMap({ namespace });
    emit({ ev: 'list', rv: list.metadata?.resourceVersion, n: list.items.length });
    delay = 200;
    return list;
}

const informer = k8s.makeInformer(kc, `/api/v1/namespaces/${namespace}/configmaps`, listFn);

for (const verb of ['add', 'update', 'delete']) {
    informer.on(verb, (obj) =>
        emit({ ev: verb, name: obj.metadata?.name, rv: obj.metadata?.resourceVersion }),
    );
}
informer.on('connect', () => emit({ ev: 'connect' }));

let restartTimer = null;
let stopping = false;
informer.on('error', (err) => {
    emit({
        ev: 'error',
        message: String(err?.message ?? err),
        statusCode: err?.statusCode ?? err?.code ?? null,
    });
    if (stopping || restartTimer) {
        return;
    }
    restartTimer = setTimeout(() => {
        restartTimer = null;
        emit({ ev: 'restart' });
        informer.start().catch((e) => emit({ ev: 'error', message: String(e) }));
    }, delay);
    delay = Math.min(delay * 2, 2000);
});
// A cache change resets the backoff (so does a successful list, above).
for (const verb of ['add', 'update', 'delete']) {
    informer.on(verb, () => {
        delay = 200;
    });
}

function state(id) {
    const items = {};
    for (const obj of informer.list(namespace)) {
        items[obj.metadata.name] = obj.metadata.resourceVersion;
    }
    emit({ ev: 'state', id, rv: informer.latestResourceVersion(), items });
}

const stdin = createInterface({ input: process.stdin });
stdin.on('line', (line) => {
    const [cmd, id] = line.trim().split(/\s+/);
    if (cmd === 'state') {
        state(id ?? null);
    } else if (cmd) {
        emit({ ev: 'bad-command', line });
    }
});
stdin.on('close', async () => {
    stopping = true;
    clearTimeout(restartTimer);
    await informer.stop();
    process.exit(0);
});

informer.start().catch((e) => emit({ ev: 'error', message: String(e) }));
