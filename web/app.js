// The pages' entry point: one document, four pages (Play, Octal explorer, Jobs, Census) chosen by the
// URL fragment, so that links, the back button and the keyboard all work without a router.

import { initPlay } from './play.js';
import { initExplorer, explorerShown, plot } from './explorer.js';
import { initJobs, jobsShown } from './jobs.js';
import { initCensus, censusShown } from './census.js';

const PAGES = ['play', 'explore', 'jobs', 'census'];

function showPage(focus) {
  const wanted = location.hash.replace(/^#/, '');
  const page = PAGES.includes(wanted) ? wanted : 'play';
  for (const id of PAGES) document.getElementById(id).hidden = id !== page;
  for (const a of document.querySelectorAll('nav a[data-page]')) {
    if (a.dataset.page === page) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  document.title = `grundy — ${{ play: 'play Welter', explore: 'octal explorer', jobs: 'jobs', census: 'census' }[page]}`;
  if (page === 'explore') explorerShown();
  if (page === 'jobs') jobsShown();
  censusShown(page === 'census');
  if (focus) document.getElementById(`${page}-h`).focus();
}

function start() {
  initPlay();
  initExplorer();
  initCensus();
  initJobs((code, n) => {
    location.hash = '#explore';
    plot(code, n);
  });
  for (const id of PAGES) document.getElementById(`${id}-h`).setAttribute('tabindex', '-1');
  window.addEventListener('hashchange', () => showPage(true));
  showPage(false);
  document.body.dataset.ready = 'true';
}

start();
