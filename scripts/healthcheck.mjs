// The container's health check (the Dockerfile's HEALTHCHECK), in node: slim images have no curl.
// A process serving the API is healthy when /healthz answers on PORT. A watcher- or deliverer-only
// process (ROLES without api) has no API, so its metrics listener on METRICS_PORT stands in.
const env = process.env;
const roles = (env.ROLES ?? 'api').split(',').map((role) => role.trim());

/** A listener bound to every interface is reached on loopback. */
function reachable(host) {
  if (host === undefined || host === '' || host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

let url;
if (roles.includes('api')) {
  url = `http://${reachable(env.HOST)}:${env.PORT ?? 8080}/healthz`;
} else if (env.METRICS_PORT !== 'off') {
  url = `http://${reachable(env.METRICS_HOST)}:${env.METRICS_PORT ?? 9464}/metrics`;
} else {
  console.log('no API and METRICS_PORT=off: nothing to ask, the running process is the health');
  process.exit(0);
}

try {
  const response = await fetch(url, { signal: AbortSignal.timeout(4_000) });
  console.log(`${url} answered ${response.status}`);
  process.exit(response.ok ? 0 : 1);
} catch (error) {
  console.log(`${url} did not answer: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
