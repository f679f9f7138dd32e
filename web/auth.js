// The API key of the Jobs page: asked for when the server answers 401 (it has keys), kept for
// this tab only (sessionStorage: gone when the tab closes, never sent to another origin), and
// sent as `Authorization: Bearer <key>` with the job requests (see api.js), the explorer's
// request for a misère-quotient job included. Compute requests never carry it.

import { byId } from './dom.js';

const STORE = 'grundy-api-key';

/** The key of this tab, or '' when none was given. */
export function apiKey() {
  try { return sessionStorage.getItem(STORE) || ''; } catch { return ''; }
}

function setKey(key) {
  try {
    if (key) sessionStorage.setItem(STORE, key); else sessionStorage.removeItem(STORE);
  } catch { /* storage refused: the key lives as long as this page */ }
}

/**
 * The Authorization header for `path` (job and census paths only, or any when `job` says the
 * request submits a job, as a misère quotient with `"async": true` does), as an object to
 * spread.
 */
export function authHeaders(path, job = false) {
  const key = apiKey();
  return key && (job || path.startsWith('/v1/octal/jobs') || path.startsWith('/v1/octal/census')) ? { authorization: `Bearer ${key}` } : {};
}

/**
 * Wires the key box of the Jobs page: `changed()` is called after a key is given or forgotten.
 * Returns {needKey(why), showOwner(page)}.
 */
export function initKeyBox(changed) {
  const box = byId('jobs-key');
  const form = byId('jobs-key-form');
  const input = byId('jobs-key-input');
  const why = byId('jobs-key-why');
  const forget = byId('jobs-key-forget');
  const owner = byId('jobs-owner');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const key = input.value.trim();
    input.value = '';
    if (!key) { why.textContent = 'Enter the key your operator gave you.'; return; }
    setKey(key);
    forget.hidden = false;
    changed();
  });
  forget.addEventListener('click', () => {
    setKey('');
    forget.hidden = true;
    owner.textContent = '';
    changed();
  });
  forget.hidden = !apiKey();
  return {
    /** The server refused the key (or wants one): show the box with the reason. */
    needKey(reason) {
      box.hidden = false;
      why.textContent = reason;
      input.focus();
    },
    /** Says whose jobs a page of the list holds (its `key_name` and `owner`). */
    showOwner(page) {
      if (page.key_name) {
        box.hidden = false;
        why.textContent = '';
        owner.textContent = page.owner
          ? `Jobs of the key “${page.owner}”${page.owner === page.key_name ? '' : ` (seen with the admin key “${page.key_name}”)`}.`
          : `Every owner's jobs (admin key “${page.key_name}”).`;
      } else {
        owner.textContent = apiKey() ? '' : 'This server needs no key: every job is listed.';
      }
    },
  };
}
