// The address of every view, in the URL fragment, so that a view can be linked, bookmarked and
// walked through with the back button:
//
//   #play                               play against the engine
//   #explore?code=0.137&n=5000&misere=20  a code plotted to n (default 1000), its misère quotient
//   #jobs, #jobs/{id}                   the job list, one job
//   #census, #census/{id}               the censuses, one census's table
//
// One parser (`parse`), one way to build an address (`address`) and one way to go to one (`go`,
// `replace`); app.js shows the page an address names and hands the rest to that page.

export const PAGES = ['play', 'explore', 'jobs', 'census'];

/**
 * The route of a fragment: {page, id, params}. `page` is null for a fragment that names no page
 * (an in-page anchor such as the skip link's #main); an empty fragment is the Play page. `id` is
 * the decoded segment after `page/` (null when there is none), `params` a URLSearchParams.
 */
export function parse(hash) {
  const raw = String(hash || '').replace(/^#/, '');
  const mark = raw.indexOf('?');
  const path = mark < 0 ? raw : raw.slice(0, mark);
  const query = mark < 0 ? '' : raw.slice(mark + 1);
  const slash = path.indexOf('/');
  const name = slash < 0 ? path : path.slice(0, slash);
  let id = slash < 0 ? '' : path.slice(slash + 1);
  try { id = decodeURIComponent(id); } catch { /* a malformed escape: the id as written */ }
  let page = null;
  if (PAGES.includes(name)) page = name;
  else if (raw === '') page = 'play';
  return { page, id: id === '' ? null : id, params: new URLSearchParams(query) };
}

/**
 * The fragment of a view: address('census', {id}) → '#census/{id}';
 * address('explore', {params: {code: '0.07', n: 1000}}) → '#explore?code=0.07&n=1000'
 * (parameters that are undefined, null or '' are left out).
 */
export function address(page, { id = null, params = {} } = {}) {
  let out = `#${page}`;
  if (id !== null && id !== undefined && id !== '') out += `/${encodeURIComponent(id)}`;
  const pairs = Object.entries(params)
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  if (pairs.length) out += `?${pairs.join('&')}`;
  return out;
}

let handler = () => {};

/** Sets the function that shows a route: handler(route, {again}). */
export function onRoute(fn) {
  handler = fn;
}

/**
 * Goes to `hash` with a new history entry (the view follows through `hashchange`). The address
 * already shown is shown again (`again`: e.g. *Plot* clicked twice recomputes).
 */
export function go(hash) {
  const target = new URL(hash, location.href).hash;
  if (target === location.hash) handler(parse(target), { again: true });
  else location.hash = target;
}

/** Replaces the address shown without a new history entry (e.g. after a delete), and shows it. */
export function replace(hash) {
  const url = new URL(hash, location.href);
  history.replaceState(history.state, '', url.href);
  handler(parse(url.hash), { again: false });
}
