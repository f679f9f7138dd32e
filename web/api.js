// Talking to the grundy API from the pages: JSON in, JSON out, RFC 9457 problems as errors,
// and feature detection from the service's own OpenAPI document. Job requests carry the tab's
// API key when one was given (auth.js).

import { authHeaders } from './auth.js';

/** A failed request: `problem` is the RFC 9457 document when the server sent one. */
export class ApiError extends Error {
  constructor(status, problem, fallback) {
    super(problem && problem.detail ? problem.detail : fallback || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || null;
  }
}

async function failure(resp) {
  let problem = null;
  const type = resp.headers.get('content-type') || '';
  if (type.includes('json')) {
    try { problem = await resp.json(); } catch { problem = null; }
  }
  return new ApiError(resp.status, problem, `${resp.status} ${resp.statusText}`);
}

/**
 * POST `body` as JSON to `path`; resolves to the JSON answer or rejects with ApiError. `job`:
 * the request submits a job (it carries the tab's API key whatever its path).
 */
export async function post(path, body, { signal, job = false } = {}) {
  const resp = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...authHeaders(path, job) },
    body: JSON.stringify(body),
    signal,
  });
  if (!resp.ok) throw await failure(resp);
  return resp.json();
}

/** GET `path` as JSON. */
export async function get(path, { signal } = {}) {
  const resp = await fetch(path, { headers: { accept: 'application/json', ...authHeaders(path) }, signal });
  if (!resp.ok) throw await failure(resp);
  return resp.json();
}

/** DELETE `path`; resolves to the JSON answer (or null for an empty body). */
export async function del(path) {
  const resp = await fetch(path, { method: 'DELETE', headers: { accept: 'application/json', ...authHeaders(path) } });
  if (!resp.ok) throw await failure(resp);
  const text = await resp.text();
  return text ? JSON.parse(text) : null;
}

/** GET `path` with `accept`; resolves to the Response (ok) or rejects with ApiError. */
export async function raw(path, accept, { signal } = {}) {
  const resp = await fetch(path, { headers: { accept }, signal });
  if (!resp.ok) throw await failure(resp);
  return resp;
}

/** A path segment: game codes such as `S(1,2,5)` or `4.(3)` travel URL-encoded. */
export function seg(text) {
  return encodeURIComponent(text);
}

let featuresPromise = null;

/**
 * What this server offers beyond the base contract, read from /openapi.json (no probing
 * requests that could fail): `values` — GET /v1/octal/{code}/values (CSV and binary);
 * `events` — GET /v1/octal/jobs/{id}/events (server-sent progress).
 */
export function features() {
  if (!featuresPromise) {
    featuresPromise = get('/openapi.json')
      .then((doc) => {
        const paths = doc && doc.paths ? doc.paths : {};
        return {
          values: Boolean(paths['/v1/octal/{code}/values'] && paths['/v1/octal/{code}/values'].get),
          events: Boolean(paths['/v1/octal/jobs/{id}/events'] && paths['/v1/octal/jobs/{id}/events'].get),
        };
      })
      .catch(() => ({ values: false, events: false }));
  }
  return featuresPromise;
}

/** A readable sentence for any error. */
export function message(err) {
  if (err instanceof ApiError) return err.message;
  if (err && err.name === 'AbortError') return 'cancelled';
  return err && err.message ? err.message : String(err);
}
