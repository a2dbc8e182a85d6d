// "How many bytes did this page load?" — every resource the page fetched (Resource Timing), the
// document included, printed into an element and kept up to date as more arrive (the core wasm on
// first use, a tokenizer table once a count needs it).

// A file by its name; an API answer (no extension) by its path.
const name = (url) => {
  const { pathname } = new URL(url);
  const last = decodeURIComponent(pathname.split('/').pop() || 'index.html');
  return last.includes('.') ? last : decodeURIComponent(pathname);
};
const kib = (n) => (n >= 1048576 ? `${(n / 1048576).toFixed(2)} MiB` : `${(n / 1024).toFixed(1)} KiB`);

/**
 * Print the bytes loaded into `element`; `data-bytes` holds the total of the encoded bodies,
 * `data-files` the file names, comma-separated.
 * @param {HTMLElement} element
 */
export function showLoadedBytes(element) {
  const files = new Map();
  const add = (entry) => {
    // encodedBodySize: the body as it came over the wire (compressed if the server compressed
    // it); transferSize adds the headers and is 0 for cache hits.
    files.set(entry.name, { file: name(entry.name), body: entry.encodedBodySize, transfer: entry.transferSize });
  };
  const render = () => {
    const list = [...files.values()];
    const total = list.reduce((n, f) => n + f.body, 0);
    element.dataset.bytes = String(total);
    element.dataset.files = list.map((f) => f.file).join(',');
    element.textContent = `Loaded ${kib(total)} in ${list.length} files: `;
    const parts = list
      .slice()
      .sort((a, b) => b.body - a.body)
      .map((f) => Object.assign(document.createElement('span'), { className: 'file', textContent: `${f.file} ${kib(f.body)}`, title: `${f.body.toLocaleString('en')} bytes` }));
    parts.forEach((p, i) => element.append(...(i ? [' · ', p] : [p])));
  };
  for (const entry of performance.getEntriesByType('navigation')) add(entry);
  new PerformanceObserver((observed) => {
    for (const entry of observed.getEntries()) add(entry);
    render();
  }).observe({ type: 'resource', buffered: true });
  render();
}
