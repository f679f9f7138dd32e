// The pages' entry point: one document, four pages (Play, Octal explorer, Jobs, Census). The URL
// fragment is the address of what is shown (route.js): `#explore?code=0.137&n=5000`,
// `#jobs/{id}`, `#census/{id}`, … — opening one shows that view with no click, and the back
// button walks through what was viewed. Links, the back button and the keyboard all work without
// a framework.

import { initPlay } from './play.js';
import { initExplorer, explorerRoute } from './explorer.js';
import { initJobs, jobsRoute, jobsLeft } from './jobs.js';
import { initCensus, censusRoute, censusLeft } from './census.js';
import { PAGES, parse, onRoute, address, go } from './route.js';

let shownPage = null;

function title(route) {
  const { page, id, params } = route;
  if (page === 'explore' && params.get('code')) {
    return `grundy — octal explorer: ${params.get('code')}${params.get('n') ? ` to n = ${params.get('n')}` : ''}`;
  }
  if (page === 'jobs' && id) return `grundy — job ${id}`;
  if (page === 'census' && id) return `grundy — census ${id}`;
  return `grundy — ${{ play: 'play Welter', explore: 'octal explorer', jobs: 'jobs', census: 'census' }[page]}`;
}

/** Shows the view of `route`; `focus` moves the keyboard focus to the page's heading when the page changes. */
function show(route, { again = false, focus = false } = {}) {
  // A fragment naming no page (the skip link's #main) leaves the page shown as it is.
  if (route.page === null) {
    if (shownPage) return;
    route = parse('#play');
  }
  const { page } = route;
  const moved = page !== shownPage;
  if (moved && shownPage === 'jobs') jobsLeft();
  if (moved && shownPage === 'census') censusLeft();
  shownPage = page;
  for (const id of PAGES) document.getElementById(id).hidden = id !== page;
  for (const a of document.querySelectorAll('nav a[data-page]')) {
    if (a.dataset.page === page) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  document.body.dataset.page = page;
  document.title = title(route);
  if (page === 'explore') {
    // The explorer's link in the menu leads back to the plot last shown.
    document.querySelector('nav a[data-page="explore"]').setAttribute('href', location.hash.startsWith('#explore') ? location.hash : '#explore');
    explorerRoute(route.params, { again });
  }
  if (page === 'jobs') jobsRoute(route.id, { again, params: route.params });
  if (page === 'census') censusRoute(route.id, { again });
  if (focus && moved) document.getElementById(`${page}-h`).focus();
}

function start() {
  initPlay();
  initExplorer();
  initCensus();
  initJobs((code, n) => go(address('explore', { params: { code, n } })));
  for (const id of PAGES) document.getElementById(`${id}-h`).setAttribute('tabindex', '-1');
  onRoute((route, { again }) => show(route, { again, focus: false }));
  window.addEventListener('hashchange', () => show(parse(location.hash), { focus: true }));
  show(parse(location.hash), { focus: false });
  document.body.dataset.ready = 'true';
}

start();
