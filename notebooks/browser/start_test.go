//go:build browser

package browser

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The course's pages, as a student first meets them in Jupyter: rendered,
// not as raw Markdown; every link opens; no text garbled by a wrong
// character set.
var coursePages = []struct {
	file  string
	title string // the text of the page's first heading
	links int    // at least this many links to other notebooks
}{
	{"00_start_here.ipynb", "Stencil Lab · start here", 13},
	{"glossary.ipynb", "Glossary", 10},
}

// mojibake is what UTF-8 text turns into when it is read as Latin-1 or
// Windows-1252 ("â‰ˆ" for "≈", "Ã—" for "×", "Â " for a no-break space).
var mojibake = []string{"â€", "â‰", "Ã", "Â", "Ï€"}

// jsPage reports a rendered page: its first heading, whether a cell still
// shows its Markdown source, its text, and the targets of its links.
const jsPage = `(() => {
	const rendered = Array.from(document.querySelectorAll('.text_cell_render'));
	const raw = Array.from(document.querySelectorAll('.text_cell.unrendered'));
	const h1 = document.querySelector('.text_cell_render h1');
	const links = Array.from(document.querySelectorAll('.text_cell_render a[href]'))
		.map(a => a.href).filter(h => h.startsWith(location.origin));
	return JSON.stringify({
		title: h1 ? h1.innerText.replace(/¶$/, '').trim() : '',
		rendered: rendered.length, raw: raw.length, tables: document.querySelectorAll('.text_cell_render table').length,
		text: rendered.map(c => c.innerText).join('\n'), links: links});
})()`

// jsFetch fetches each of the page's links from the page itself, with the
// server's session, and reports the status of each and the text of each
// notebook it opens.
const jsFetch = `(async (links) => {
	const out = [];
	for (const l of links) {
		try {
			const r = await fetch(l, {credentials: 'same-origin'});
			out.push({link: l, status: r.status, type: r.headers.get('content-type') || ''});
		} catch (e) {
			out.push({link: l, status: 0, type: String(e)});
		}
	}
	return JSON.stringify(out);
})`

// pageReport is jsPage's report.
type pageReport struct {
	Title    string   `json:"title"`
	Rendered int      `json:"rendered"`
	Raw      int      `json:"raw"`
	Tables   int      `json:"tables"`
	Text     string   `json:"text"`
	Links    []string `json:"links"`
}

// coursePageChecks opens the start page and the glossary of the students'
// copy that the server s serves, in the browser bctx, each as a subtest
// named by its notebook (TestNotebooksInABrowser runs them first, on its
// server): both render as Markdown, with their headings and tables, every
// link of theirs opens (status 200) and no text is garbled.
func coursePageChecks(t *testing.T, bctx context.Context, s *server) {
	t.Helper()
	for _, p := range coursePages {
		t.Run(strings.TrimSuffix(p.file, ".ipynb"), func(t *testing.T) {
			tab, closeTab := chromedp.NewContext(bctx)
			defer closeTab()
			require.NoError(t, chromedp.Do(tab, chromedp.Navigate(s.url+"/notebooks/"+p.file+"?token="+s.token)), "open %s", p.file)
			var rep pageReport
			for {
				raw, err := chromedp.Run(tab, chromedp.Evaluate[string](jsPage))
				require.NoError(t, err)
				require.NoError(t, json.Unmarshal([]byte(raw), &rep))
				if rep.Title != "" || tab.Err() != nil {
					break
				}
				time.Sleep(300 * time.Millisecond)
			}
			assert.Equal(t, p.title, rep.Title, "%s renders its heading", p.file)
			assert.Zero(t, rep.Raw, "%s: no cell is left as Markdown source", p.file)
			assert.Greater(t, rep.Rendered, 1, p.file)
			if p.file == "00_start_here.ipynb" {
				assert.Equal(t, 1, rep.Tables, "the contents render as a table")
				assert.Contains(t, rep.Text, "How predictions work")
				assert.Regexp(t, `about \d+ (s|min)`, rep.Text, "the contents give the run times")
			}
			for _, bad := range mojibake {
				assert.NotContains(t, rep.Text, bad, "%s shows mojibake", p.file)
			}
			assert.GreaterOrEqual(t, len(rep.Links), p.links, "%s: links to the notebooks", p.file)
			raw, err := chromedp.Run(tab, chromedp.Evaluate[string](jsFetch+"("+mustJSON(t, rep.Links)+")", chromedp.EvalAwaitPromise))
			require.NoError(t, err)
			var fetched []struct {
				Link   string `json:"link"`
				Status int    `json:"status"`
				Type   string `json:"type"`
			}
			require.NoError(t, json.Unmarshal([]byte(raw), &fetched))
			for _, f := range fetched {
				assert.Equal(t, 200, f.Status, "%s: the link %s opens", p.file, f.Link)
			}
			_, _ = chromedp.Run(tab, chromedp.Evaluate[bool](`(() => { Jupyter.notebook.set_dirty(false); window.onbeforeunload = null;
				Jupyter.notebook.session.delete(); return true; })()`))
		})
	}
}

// mustJSON returns v as JSON, for a script's argument.
func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
