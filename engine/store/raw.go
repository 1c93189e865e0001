package store

import (
	"context"
	"fmt"
	"time"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// rawConn is a read-only connection made with SQLite's own interface, not
// through database/sql, for the listings that read every row (rein audit).
// The driver opens each connection in SQLite's serialized mode, which takes
// a lock around every column read: for 10,000 audit rows that lock and
// database/sql's conversions were two thirds of the read. A rawConn belongs
// to the one goroutine that opened it, so it asks for no such lock
// (SQLITE_OPEN_NOMUTEX); SQLite's own shared state keeps its locks.
type rawConn struct {
	tls *libc.TLS
	db  uintptr
}

// openRaw opens path for reading; the database must exist. The path is
// read as a URI, as the driver's connections read it, so that both open
// the same file whatever its name holds.
func openRaw(path string, busy time.Duration) (*rawConn, error) {
	c := &rawConn{tls: libc.NewTLS()}
	name, err := libc.CString(fileURI(path))
	if err != nil {
		c.tls.Close()
		return nil, err
	}
	defer libc.Xfree(c.tls, name)
	// SQLite writes its handles through pointers into libc's memory: a Go
	// variable's address could move with its goroutine's stack.
	pdb := c.tls.Alloc(int(unsafe.Sizeof(uintptr(0))))
	rc := sqlite3.Xsqlite3_open_v2(c.tls, name, pdb,
		sqlite3.SQLITE_OPEN_READONLY|sqlite3.SQLITE_OPEN_NOMUTEX|sqlite3.SQLITE_OPEN_URI, 0)
	c.db = peek(pdb)
	c.tls.Free(int(unsafe.Sizeof(uintptr(0))))
	if rc != sqlite3.SQLITE_OK {
		err := c.err(rc)
		c.close()
		return nil, err
	}
	sqlite3.Xsqlite3_busy_timeout(c.tls, c.db, int32(busy.Milliseconds()))
	return c, nil
}

func (c *rawConn) close() {
	if c.db != 0 {
		sqlite3.Xsqlite3_close_v2(c.tls, c.db)
		c.db = 0
	}
	c.tls.Close()
}

// err is SQLite's message for a failed call.
func (c *rawConn) err(rc int32) error {
	msg := ""
	if c.db != 0 {
		msg = libc.GoString(sqlite3.Xsqlite3_errmsg(c.tls, c.db))
	}
	if msg == "" {
		msg = libc.GoString(sqlite3.Xsqlite3_errstr(c.tls, rc))
	}
	return fmt.Errorf("%s (%d)", msg, rc)
}

// rawRow reads the columns of the row a query stands on.
type rawRow struct {
	tls  *libc.TLS
	stmt uintptr
	// last keeps each column's previous text, to give a repeated value
	// (a workspace, a rule) the same string instead of a copy a row.
	last []string
}

// text is column i as text ("" for NULL).
func (r *rawRow) text(i int) string {
	p := sqlite3.Xsqlite3_column_text(r.tls, r.stmt, int32(i))
	n := int(sqlite3.Xsqlite3_column_bytes(r.tls, r.stmt, int32(i)))
	if p == 0 || n == 0 {
		return ""
	}
	// p is SQLite's memory, outside Go's heap, valid until the next step.
	b := unsafe.Slice(*(**byte)(unsafe.Pointer(&p)), n)
	if i < len(r.last) && r.last[i] == string(b) {
		return r.last[i]
	}
	s := string(b)
	if i < len(r.last) {
		r.last[i] = s
	}
	return s
}

// int is column i as an integer, and whether it is not NULL.
func (r *rawRow) int(i int) (int64, bool) {
	if sqlite3.Xsqlite3_column_type(r.tls, r.stmt, int32(i)) == sqlite3.SQLITE_NULL {
		return 0, false
	}
	return int64(sqlite3.Xsqlite3_column_int64(r.tls, r.stmt, int32(i))), true
}

// query runs q with args (strings and integers) and calls row for each of
// its rows, which have the given number of columns. It stops when ctx ends
// or row fails.
func (c *rawConn) query(ctx context.Context, q string, args []any, columns int, row func(*rawRow) error) error {
	text, err := libc.CString(q)
	if err != nil {
		return err
	}
	defer libc.Xfree(c.tls, text)
	var kept []uintptr // bound texts: freed after the statement (deferred first, run last)
	defer func() {
		for _, p := range kept {
			libc.Xfree(c.tls, p)
		}
	}()
	pstmt := c.tls.Alloc(int(unsafe.Sizeof(uintptr(0))))
	rc := sqlite3.Xsqlite3_prepare_v2(c.tls, c.db, text, -1, pstmt, 0)
	stmt := peek(pstmt)
	c.tls.Free(int(unsafe.Sizeof(uintptr(0))))
	if rc != sqlite3.SQLITE_OK {
		return c.err(rc)
	}
	defer sqlite3.Xsqlite3_finalize(c.tls, stmt)
	for i, a := range args {
		var rc int32
		switch v := a.(type) {
		case string:
			p, err := libc.CString(v)
			if err != nil {
				return err
			}
			kept = append(kept, p)
			rc = sqlite3.Xsqlite3_bind_text(c.tls, stmt, int32(i+1), p, int32(len(v)), 0)
		case int:
			rc = sqlite3.Xsqlite3_bind_int64(c.tls, stmt, int32(i+1), int64(v))
		default:
			return fmt.Errorf("store: cannot bind %T", a)
		}
		if rc != sqlite3.SQLITE_OK {
			return c.err(rc)
		}
	}
	r := &rawRow{tls: c.tls, stmt: stmt, last: make([]string, columns)}
	for n := 1; ; n++ {
		if n%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		switch rc := sqlite3.Xsqlite3_step(c.tls, stmt); rc {
		case sqlite3.SQLITE_ROW:
			if err := row(r); err != nil {
				return err
			}
		case sqlite3.SQLITE_DONE:
			return nil
		default:
			return c.err(rc)
		}
	}
}

// peek reads the handle SQLite wrote at p, in libc's memory (outside Go's
// heap, so the address is not a Go pointer for the garbage collector).
func peek(p uintptr) uintptr { return **(**uintptr)(unsafe.Pointer(&p)) }
