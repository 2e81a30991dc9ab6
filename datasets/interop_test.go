package datasets

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/lmask/lmask/lazymask"
)

// TestDuckDBReadsFiles reads an instances and a solutions file back with
// DuckDB (scripts/interop/duckdb_read.mjs) and checks counts, a coordinate,
// a cost and the metadata.
func TestDuckDBReadsFiles(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed; DuckDB interop test skipped")
	}
	script, _ := filepath.Abs(filepath.Join("..", "scripts", "interop", "duckdb_read.mjs"))
	mods := os.Getenv("LMASK_NODE_MODULES")
	if mods == "" {
		mods, _ = filepath.Abs(filepath.Join("..", "third_party", "node", "node_modules"))
	}
	if _, err := os.Stat(filepath.Join(mods, "@duckdb", "node-api")); err != nil {
		t.Skipf("@duckdb/node-api not installed under %s (npm install @duckdb/node-api@1.5.6-r.1)", mods)
	}
	dir := t.TempDir()
	ip, sp := filepath.Join(dir, "i.parquet"), filepath.Join(dir, "s.parquet")
	cfg := GenConfig{Problem: lazymask.TSPTW, N: 12, Hardness: Hard, Seed: 4}
	if _, err := GenerateFile(ip, cfg, 300, WriterOptions{RowGroupRows: 128}); err != nil {
		t.Fatal(err)
	}
	insts, tours := mustGenerate(t, cfg, 300)
	var sols []Solution
	for i := range insts {
		s, err := Checked(insts[i], int64(i), tours[i], "known")
		if err != nil {
			t.Fatal(err)
		}
		sols = append(sols, s)
	}
	if err := WriteSolutions(sp, Metadata{Problem: "tsptw"}, sols, WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	query := func(sql string) []map[string]any {
		out, err := exec.Command(node, script, sql).CombinedOutput()
		if err != nil {
			t.Fatalf("duckdb: %v\n%s", err, out)
		}
		var rows []map[string]any
		if err := json.Unmarshal(out, &rows); err != nil {
			t.Fatalf("duckdb output %s: %v", out, err)
		}
		return rows
	}
	num := func(v any) float64 {
		switch x := v.(type) {
		case float64:
			return x
		case string:
			f, _ := strconv.ParseFloat(x, 64)
			return f
		}
		t.Fatalf("not a number: %#v", v)
		return 0
	}
	r := query(fmt.Sprintf("SELECT count(*) AS c, max(n) AS n FROM read_parquet('%s')", ip))
	if num(r[0]["c"]) != 300 || num(r[0]["n"]) != 12 {
		t.Fatalf("instances: %v", r)
	}
	r = query(fmt.Sprintf("SELECT x[4] AS x3, late[8] AS l7, len(known_tour) AS k FROM read_parquet('%s') WHERE \"index\" = 217", ip))
	if num(r[0]["x3"]) != insts[217].X[3] || num(r[0]["l7"]) != insts[217].Late[7] || num(r[0]["k"]) != 12 {
		t.Fatalf("row 217: %v", r)
	}
	r = query(fmt.Sprintf("SELECT cost, feasible FROM read_parquet('%s') WHERE instance = 42", sp))
	if num(r[0]["cost"]) != sols[42].Cost || r[0]["feasible"] != true {
		t.Fatalf("solution 42: %v", r)
	}
	r = query(fmt.Sprintf("SELECT decode(value) AS v FROM parquet_kv_metadata('%s') WHERE decode(key) = 'lmask.count'", ip))
	if len(r) != 1 || r[0]["v"] != "300" {
		t.Fatalf("metadata: %v", r)
	}
}
