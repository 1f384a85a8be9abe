package main

import (
	"regexp"
	"strconv"
	"strings"
)

// chapterSection maps each figure of chapter 8 of Programming Massively
// Parallel Processors (4th ed.) to the section it belongs to (Fig. 8.11,
// whose caption speaks of the coarsened kernel's shared arrays, to 8.4): 8.1
// Background, 8.2 Parallel stencil: a basic algorithm, 8.3 Shared memory
// tiling for stencil sweep, 8.4 Thread coarsening, 8.5 Register tiling.
var chapterSection = map[int]string{
	1: "8.1", 2: "8.1", 3: "8.1", 4: "8.1", 5: "8.1",
	6: "8.2", 7: "8.3", 8: "8.3", 9: "8.4", 10: "8.4", 11: "8.4", 12: "8.5",
}

// figRefRe finds a reference to figures of the chapter: "Fig. 8.8",
// "Figs. 8.9 and 8.10", "Figs. 8.3–8.5", "Figs. 8.1, 8.2", with a panel's
// letter where it names one: "Fig. 8.3C".
var figRefRe = regexp.MustCompile(`Figs?\. 8\.(\d+)[A-F]?((?:(?:–|, | and )8\.\d+[A-F]?)*)`)

var figNumRe = regexp.MustCompile(`8\.(\d+)`)

// figSections returns the sections of the figures a reference names, in
// order and once each, as "§8.4, §8.5"; "" when a figure is not of the
// chapter.
func figSections(ref string) string {
	nums := figNumRe.FindAllStringSubmatch(ref, -1)
	var figs []int
	for i, m := range nums {
		n, _ := strconv.Atoi(m[1])
		if i == 1 && strings.Contains(ref, "–") && len(figs) == 1 {
			for f := figs[0] + 1; f <= n; f++ {
				figs = append(figs, f)
			}
			continue
		}
		figs = append(figs, n)
	}
	var secs []string
	for _, f := range figs {
		s, ok := chapterSection[f]
		if !ok {
			return ""
		}
		s = "§" + s
		if len(secs) == 0 || secs[len(secs)-1] != s {
			secs = append(secs, s)
		}
	}
	return strings.Join(secs, ", ")
}

// panelAfterRe finds a section written between a figure's number and its
// panel's letter, "Fig. 8.3 (§8.1)C", where "Fig. 8.3C (§8.1)" is meant.
var panelAfterRe = regexp.MustCompile(`Figs?\. 8\.\d+ \(§8\.\d\)[A-F]\b`)

// SplitPanels returns the references of text whose panel letter follows
// the section instead of the figure's number.
func SplitPanels(text string) []string { return panelAfterRe.FindAllString(text, -1) }

// MissingSections returns the figure references of text that are not
// followed by their sections, " (§8.3)" or, inside parentheses, ", §8.3".
func MissingSections(text string) []string {
	var out []string
	for _, loc := range figRefRe.FindAllStringIndex(text, -1) {
		ref := text[loc[0]:loc[1]]
		secs := figSections(ref)
		rest := text[loc[1]:]
		if secs == "" || (!strings.HasPrefix(rest, " ("+secs+")") && !strings.HasPrefix(rest, ", "+secs)) {
			out = append(out, ref)
		}
	}
	return out
}
