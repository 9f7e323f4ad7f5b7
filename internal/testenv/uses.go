package testenv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
)

// Uses lists what the packages pkgs (patterns for go list, run in dir) use
// of the packages in of (import paths): every function, method, type,
// variable, constant and field of theirs that a non-test file names, as
// "path.Name" or "path.Type.Member", each with the first position that
// names it. It type-checks the real build (go list -export for the current
// GOOS), so a method called on a value, a field read through a struct and a
// name brought in by an alias all count, not only the package-qualified
// names a text search would see.
func Uses(dir string, pkgs, of []string) (map[string]string, error) {
	cmd := exec.Command("go", append([]string{"list", "-export", "-deps", "-json=ImportPath,Dir,GoFiles,CgoFiles,Export,DepOnly,Error"}, pkgs...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %v: %w\n%s", pkgs, err, stderr.Bytes())
	}
	type listed struct {
		ImportPath, Dir, Export string
		GoFiles, CgoFiles       []string
		DepOnly                 bool
		Error                   *struct{ Err string }
	}
	exports := map[string]string{}
	var roots []listed
	for d := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listed
		if err := d.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list output: %w", err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("go list: %s: %s", p.ImportPath, p.Error.Err)
		}
		exports[p.ImportPath] = p.Export
		if !p.DepOnly {
			roots = append(roots, p)
		}
	}
	watched := map[string]bool{}
	for _, p := range of {
		watched[p] = true
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	uses := map[string]string{}
	for _, p := range roots {
		var files []*ast.File
		for _, name := range append(p.GoFiles, p.CgoFiles...) {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				return nil, err
			}
			files = append(files, f)
		}
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
		conf := types.Config{Importer: imp.(types.ImporterFrom)}
		if _, err := conf.Check(p.ImportPath, fset, files, info); err != nil {
			return nil, fmt.Errorf("type-check %s: %w", p.ImportPath, err)
		}
		note := func(obj types.Object, recv types.Type, at token.Pos) {
			if obj == nil || obj.Pkg() == nil || !watched[obj.Pkg().Path()] {
				return
			}
			name := obj.Pkg().Path() + "." + obj.Name()
			if recv != nil {
				if ptr, ok := recv.(*types.Pointer); ok {
					recv = ptr.Elem()
				}
				if named, ok := types.Unalias(recv).(*types.Named); ok && named.Obj().Pkg() == obj.Pkg() {
					name = obj.Pkg().Path() + "." + named.Obj().Name() + "." + obj.Name()
				}
			}
			if _, seen := uses[name]; !seen {
				uses[name] = fset.Position(at).String()
			}
		}
		for id, obj := range info.Uses {
			if v, ok := obj.(*types.Var); ok && v.IsField() {
				continue // fields are named with their struct through Selections
			}
			if f, ok := obj.(*types.Func); ok && f.Signature().Recv() != nil {
				note(obj, f.Signature().Recv().Type(), id.Pos())
				continue
			}
			note(obj, nil, id.Pos())
		}
		for sel, s := range info.Selections {
			if v, ok := s.Obj().(*types.Var); ok && v.IsField() {
				note(v, fieldOwner(s), sel.Sel.Pos())
			}
		}
	}
	return uses, nil
}

// fieldOwner is the struct type that declares the field a selection picks
// (through embedded fields), so a field reads as Type.Field.
func fieldOwner(s *types.Selection) types.Type {
	t := s.Recv()
	idx := s.Index()
	for _, i := range idx[:len(idx)-1] {
		st, ok := structOf(t)
		if !ok {
			return nil
		}
		t = st.Field(i).Type()
	}
	return t
}

func structOf(t types.Type) (*types.Struct, bool) {
	if ptr, ok := types.Unalias(t).(*types.Pointer); ok {
		t = ptr.Elem()
	}
	st, ok := t.Underlying().(*types.Struct)
	return st, ok
}

// SortedKeys is m's keys in order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
