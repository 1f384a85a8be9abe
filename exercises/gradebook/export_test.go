package gradebook

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
)

// tenRoster is a roster of ten students whose ids are plain or emails and
// whose names carry accents and other scripts; its columns are in an
// order of its own.
const tenRoster = "\ufefffolder,Section,E-mail,Full name,SIS ID\n" +
	"ana.lopez@uni.example,Lab A,ana.lopez@uni.example,Ana López,1001\n" +
	"bjorn,Lab A,bjorn@uni.example,Björn Ångström,1002\n" +
	"chloe@uni.example,Lab B,chloe@uni.example,Chloé Lefèvre,1003\n" +
	"dmitri,Lab B,dmitri@uni.example,Дмитрий Иванов,1004\n" +
	"emre,Lab A,emre@uni.example,Emre Çelik,1005\n" +
	"francois,Lab B,Francois@Uni.example,\"François, Jr.\",1006\n" +
	"gu,Lab A,gu@uni.example,顾明,1007\n" +
	"helene,Lab B,helene@uni.example,Hélène Dubois,1008\n" +
	"ines,Lab A,ines@uni.example,Inês Conceição,1009\n" +
	"zoe,Lab B,zoe@uni.example,=Zoë Ødegaard,1010\n"

// tenBook is a gradebook of the roster's students but the last, with a
// student the roster does not list, random points, a withheld CUDA cell
// and an override.
func tenBook(rng *rand.Rand, r *Roster) (*Book, map[string][2]int) {
	exs := []Exercise{{ID: "01_sine", Title: "Sine", MaxPoints: 8}, {ID: "20_cuda_basic", Title: "Basic CUDA, global memory", MaxPoints: 16}}
	g := New(exs)
	pts := map[string][2]int{}
	ids := []string{"stranger"}
	for _, p := range r.People[:9] {
		ids = append(ids, p.ID)
	}
	for _, id := range ids {
		a, b := rng.IntN(9), rng.IntN(17)
		g.Students[id] = &Student{ID: id, Source: SourceFiles, Cells: map[string]*Cell{
			"01_sine":       {State: StateGraded, Points: a, MaxPoints: 8, Result: result("01_sine", a, 8, "x")},
			"20_cuda_basic": {State: StateGraded, Points: b, MaxPoints: 16, Result: result("20_cuda_basic", b, 16, "y")},
		}}
		pts[id] = [2]int{a, b}
	}
	g.Students["bjorn"].Cells["20_cuda_basic"] = &Cell{State: StateNeedsGPU, MaxPoints: 16,
		Result: &grading.ExerciseResult{ID: "20_cuda_basic", Status: grading.NeedsGPU, MaxPoints: 16}}
	pts["bjorn"] = [2]int{pts["bjorn"][0], -1}
	g.Students["emre"].Cells["01_sine"].Override = &Override{Points: 7, Reason: "late, by hand", Was: pts["emre"][0]}
	pts["emre"] = [2]int{7, pts["emre"][1]}
	g.Recount()
	return g, pts
}

// csvLine quotes fields as RFC 4180 does where needed, apart from the
// encoding/csv writer the export uses.
func csvLine(fields ...string) string {
	for i, f := range fields {
		if strings.ContainsAny(f, ",\"\n") {
			fields[i] = `"` + strings.ReplaceAll(f, `"`, `""`) + `"`
		}
	}
	return strings.Join(fields, ",") + "\n"
}

func cellText2(p int) string {
	if p < 0 {
		return ""
	}
	return strconv.Itoa(p)
}

func TestRosterReadsColumnsInAnyOrder(t *testing.T) {
	r, err := ReadRoster(strings.NewReader(tenRoster))
	require.NoError(t, err)
	require.Len(t, r.People, 10)
	p := r.Lookup("ana.lopez@uni.example")
	require.NotNil(t, p)
	assert.Equal(t, Person{ID: "ana.lopez@uni.example", Name: "Ana López", Email: "ana.lopez@uni.example", SISID: "1001", Section: "Lab A"}, *p)
	assert.Equal(t, "François, Jr.", r.Lookup("francois").Name)
	assert.Nil(t, r.Lookup("nobody"))
	assert.Nil(t, r.Lookup("BJORN"), "a lookup is exact")

	for _, bad := range []struct{ in, want string }{
		{"", "empty"},
		{"id,name,grade\n", `"grade": not one of`},
		{"id,name,name\n", "appears twice"},
		{"id,name\n../x,A\n", "neither an id"},
		{"id,name\na,A\nA,B\n", "appears twice"},
		{"id,email\na,not-an-email\n", "not an email address"},
		{"id,name\na,\"A\x01\"\n", "control character"},
		{"id,name\na," + strings.Repeat("é", 200) + "\n", "above the limit"},
		{"id,name\na,\xff\n", "not UTF-8"},
	} {
		_, err := ReadRoster(strings.NewReader(bad.in))
		require.Error(t, err, "%q", bad.in)
		assert.Contains(t, err.Error(), bad.want, "%q", bad.in)
	}
}

func TestExportCanvasAndMoodleOfTenStudents(t *testing.T) {
	rng := newRand()
	r, err := ReadRoster(strings.NewReader(tenRoster))
	require.NoError(t, err)
	g, pts := tenBook(rng, r)

	// The expected files, built line by line from the roster's fields and
	// the drawn points.
	var canvas, moodle strings.Builder
	canvas.WriteString(csvLine("Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Sine (01_sine)", "Basic CUDA, global memory (20_cuda_basic)"))
	canvas.WriteString(csvLine("Points Possible", "", "", "", "", "8", "16"))
	moodle.WriteString(csvLine("ID number", "Email address", "Full name", "Sine (01_sine)", "Basic CUDA, global memory (20_cuda_basic)"))
	rows := [][]string{
		{"ana.lopez@uni.example", "Ana López", "ana.lopez@uni.example", "1001", "Lab A"},
		{"bjorn", "Björn Ångström", "bjorn@uni.example", "1002", "Lab A"},
		{"chloe@uni.example", "Chloé Lefèvre", "chloe@uni.example", "1003", "Lab B"},
		{"dmitri", "Дмитрий Иванов", "dmitri@uni.example", "1004", "Lab B"},
		{"emre", "Emre Çelik", "emre@uni.example", "1005", "Lab A"},
		{"francois", "François, Jr.", "Francois@Uni.example", "1006", "Lab B"},
		{"gu", "顾明", "gu@uni.example", "1007", "Lab A"},
		{"helene", "Hélène Dubois", "helene@uni.example", "1008", "Lab B"},
		{"ines", "Inês Conceição", "ines@uni.example", "1009", "Lab A"},
		{"zoe", "'=Zoë Ødegaard", "zoe@uni.example", "1010", "Lab B"}, // a name that would start a formula
	}
	for _, row := range rows {
		a, b := "", ""
		if p, ok := pts[row[0]]; ok {
			a, b = cellText2(p[0]), cellText2(p[1])
		}
		canvas.WriteString(csvLine(row[1], "", row[3], row[2], row[4], a, b))
		moodle.WriteString(csvLine(row[3], row[2], row[1], a, b))
	}

	var got bytes.Buffer
	rep, err := g.Export(&got, FormatCanvas, r)
	require.NoError(t, err)
	assert.Equal(t, canvas.String(), got.String())
	assert.Equal(t, ExportReport{NotListed: []string{"stranger"}, NoHandIn: []string{"zoe"}}, rep)

	got.Reset()
	_, err = g.Export(&got, FormatMoodle, r)
	require.NoError(t, err)
	assert.Equal(t, moodle.String(), got.String())

	// Both read back as CSV with one width, and no cell starts a formula.
	for _, f := range []string{FormatCanvas, FormatMoodle, FormatCSV} {
		got.Reset()
		_, err = g.Export(&got, f, r)
		require.NoError(t, err, f)
		recs, err := csv.NewReader(&got).ReadAll()
		require.NoError(t, err, f)
		for _, rec := range recs {
			for _, c := range rec {
				assert.False(t, formulaStart(c), "%s: %q", f, c)
			}
		}
	}
}

func TestExportCSVCarriesTheRosterAndTheTotals(t *testing.T) {
	rng := newRand()
	r, err := ReadRoster(strings.NewReader(tenRoster))
	require.NoError(t, err)
	g, pts := tenBook(rng, r)
	var got bytes.Buffer
	_, err = g.Export(&got, FormatCSV, r)
	require.NoError(t, err)
	recs, err := csv.NewReader(&got).ReadAll()
	require.NoError(t, err)
	assert.Equal(t, []string{"student", "name", "email", "sis_id", "section", "01_sine", "20_cuda_basic", "total", "graded_max", "withheld_max", "max_points", "sha256", "modified", "note"}, recs[0])
	require.Len(t, recs, 11)
	for _, rec := range recs[1:] {
		p := pts[rec[0]]
		total, gmax, wmax := p[0]+max(p[1], 0), 24, 0
		if p[1] < 0 {
			gmax, wmax = 8, 16
		}
		assert.Equal(t, []string{cellText2(p[0]), cellText2(p[1]), fmt.Sprint(total), fmt.Sprint(gmax), fmt.Sprint(wmax), "24"}, rec[5:11], rec[0])
		if pp := r.Lookup(rec[0]); pp != nil {
			assert.Equal(t, []string{pp.Name, pp.Email, pp.SISID, pp.Section}, rec[1:5])
		} else {
			assert.Equal(t, []string{"", "", "", ""}, rec[1:5], "not in the roster")
		}
	}
	_, err = g.Export(&got, FormatCanvas, nil)
	assert.ErrorContains(t, err, "a roster is needed")
	_, err = g.Export(&got, "blackboard", r)
	assert.ErrorContains(t, err, `no format "blackboard"`)
}

func TestCheckStatsCountTheClass(t *testing.T) {
	rng := newRand()
	g, _ := sampleBook(rng)
	ids := g.StudentIDs()
	stats, mistakes := g.CheckStats(ids, 3)
	// A reference count: every graded cell's checks.
	type key struct{ ex, check string }
	ran, passed := map[key]int{}, map[key]int{}
	for _, id := range ids {
		for ex, c := range g.Students[id].Cells {
			if c.State != StateGraded || c.Result == nil {
				continue
			}
			for _, ch := range c.Result.Checks {
				ran[key{ex, ch.ID}]++
				if ch.Passed {
					passed[key{ex, ch.ID}]++
				}
			}
		}
	}
	require.Len(t, stats, len(ran))
	for _, s := range stats {
		k := key{s.Exercise, s.Check}
		assert.Equal(t, ran[k], s.Ran, "%v", k)
		assert.Equal(t, passed[k], s.Passed, "%v", k)
		assert.InDelta(t, float64(passed[k])/float64(ran[k]), s.Share(), 1e-12)
	}
	for i := 1; i < len(mistakes); i++ {
		if mistakes[i].Exercise == mistakes[i-1].Exercise {
			assert.LessOrEqual(t, mistakes[i].Count, mistakes[i-1].Count, "most frequent first")
		}
	}
	var sum bytes.Buffer
	g.Summary(&sum, g, 0)
	assert.Contains(t, sum.String(), "Checks (share of the graded students passing):")
}

// Moodle's file leaves out a person it could not map (neither email nor
// ID number), since one unknown user stops Moodle's whole import, and
// says each exercise's maximum, which the import does not set.
func TestMoodleExportLeavesOutUnmappable(t *testing.T) {
	g := New([]Exercise{{ID: "01_sine", Title: "Sine", MaxPoints: 8}, {ID: "03_five_point", Title: "Five", MaxPoints: 9}})
	g.Students["ana"] = &Student{ID: "ana", Cells: map[string]*Cell{"01_sine": {State: StateGraded, Points: 5, MaxPoints: 8}}}
	r, err := ReadRoster(strings.NewReader("id,name,email,sis_id\nana,Ana,ana@uni.example,\nbo,Bo,,\ncy,Cy,,77\n"))
	require.NoError(t, err)
	var b bytes.Buffer
	rep, err := g.Export(&b, FormatMoodle, r)
	require.NoError(t, err)
	assert.Equal(t, []string{"bo"}, rep.NoIdentifier)
	assert.Equal(t, []string{"Sine (01_sine): 8", "Five (03_five_point): 9"}, rep.Maximums)
	rows := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, rows, 3, "the header, ana and cy")
	assert.Equal(t, ",ana@uni.example,Ana,5,", rows[1])
	assert.Equal(t, "77,,Cy,,", rows[2])
}
