package shellparse

import (
	"strings"
	"sync"
)

// The long options of the GNU programs whose options the walk guards and
// file lists read (grep --include, diff --recursive, sort --files0-from,
// tar --files-from). GNU getopt_long takes any unambiguous abbreviation of
// one (grep --incl='*env', --recur), so an option is read by its full name.
// Each list is the program's own (its --help): an abbreviation short for
// several is left as written, and the program refuses it.
var gnuLongs = sync.OnceValue(func() map[string][]string {
	lists := map[string]string{
		"grep": `after-context basic-regexp before-context binary binary-files byte-offset color colour context count
			dereference-recursive devices directories exclude exclude-dir exclude-from extended-regexp file files-with-matches
			files-without-match fixed-strings group-separator help ignore-case include initial-tab invert-match label
			line-buffered line-number line-regexp max-count no-filename no-group-separator no-ignore-case no-messages null
			null-data only-matching perl-regexp quiet recursive regexp silent text version with-filename word-regexp`,
		"diff": `brief color context ed exclude exclude-from expand-tabs from-file help horizon-lines ifdef ignore-all-space
			ignore-blank-lines ignore-case ignore-file-name-case ignore-matching-lines ignore-space-change ignore-tab-expansion
			ignore-trailing-space initial-tab label left-column line-format minimal new-file no-dereference
			no-ignore-file-name-case normal paginate palette rcs recursive report-identical-files show-c-function
			show-function-line side-by-side speed-large-files starting-file strip-trailing-cr suppress-blank-empty
			suppress-common-lines tabsize text to-file unidirectional-new-file unified version width old-line-format
			new-line-format unchanged-line-format old-group-format new-group-format unchanged-group-format changed-group-format`,
		"sort": `batch-size buffer-size check compress-program debug dictionary-order field-separator files0-from
			general-numeric-sort help human-numeric-sort ignore-case ignore-leading-blanks ignore-nonprinting key merge
			month-sort numeric-sort output parallel random-sort random-source reverse sort stable temporary-directory unique
			version version-sort zero-terminated`,
		"wc": `bytes chars files0-from help lines max-line-length total version words`,
		"du": `all apparent-size block-size bytes count-links dereference dereference-args exclude exclude-from files0-from
			help human-readable inodes max-depth no-dereference null one-file-system separate-dirs si summarize threshold
			time time-style total version`,
		"tar": `absolute-names acls add-file after-date anchored append atime-preserve auto-compress backup block-number
			blocking-factor bzip2 catenate check-device check-links checkpoint checkpoint-action clamp-mtime compare compress
			concatenate confirmation create delay-directory-restore delete dereference diff directory exclude exclude-backups
			exclude-caches exclude-caches-all exclude-caches-under exclude-from exclude-ignore exclude-ignore-recursive
			exclude-tag exclude-tag-all exclude-tag-under exclude-vcs exclude-vcs-ignores extract file files-from force-local
			format full-time get group group-map gunzip gzip hard-dereference help hole-detection ignore-case
			ignore-command-error ignore-failed-read ignore-zeros incremental index-file info-script interactive
			keep-directory-symlink keep-newer-files keep-old-files label level list listed-incremental lzip lzma lzop mode
			mtime multi-volume new-volume-script newer newer-mtime no-acls no-anchored no-auto-compress no-check-device
			no-delay-directory-restore no-ignore-case no-ignore-command-error no-null no-overwrite-dir no-quote-chars
			no-recursion no-same-owner no-same-permissions no-seek no-selinux no-unquote no-verbatim-files-from no-wildcards
			no-wildcards-match-slash no-xattrs null numeric-owner occurrence old-archive one-file-system one-top-level
			overwrite overwrite-dir owner owner-map pax-option portability posix preserve-order preserve-permissions
			quote-chars quoting-style read-full-records record-size recursion recursive-unlink remove-files restrict
			rmt-command rsh-command same-order same-owner same-permissions seek selinux show-defaults show-omitted-dirs
			show-snapshot-field-ranges show-stored-names show-transformed-names skip-old-files sort sparse sparse-version
			starting-file strip-components suffix tape-length test-label to-command to-stdout totals touch transform
			uncompress ungzip unlink-first unquote update usage use-compress-program utc verbatim-files-from verbose verify
			version volno-file warning wildcards wildcards-match-slash xattrs xattrs-exclude xattrs-include xform xz zstd`,
		// git's parse-options abbreviates too, and takes --no-NAME for most
		// options (git log and diff, which pass unknown options on, do not).
		"git grep": `after-context all-match and basic-regexp before-context break cached color column context count
			exclude-standard ext-grep extended-regexp files-with-matches files-without-match fixed-strings full-name
			function-context heading ignore-case invert-match line-number max-count max-depth name-only index not null
			only-matching open-files-in-pager or perl-regexp quiet recurse-submodules recursive show-function text textconv
			threads untracked word-regexp`,
		"git add": `all chmod dry-run edit force ignore-errors ignore-missing ignore-removal intent-to-add interactive
			patch pathspec-file-nul pathspec-from-file refresh renormalize sparse update verbose`,
		"git cat-file": `allow-unknown-type batch batch-all-objects batch-check batch-command buffer filters follow-symlinks
			mailmap path textconv unordered use-mailmap`,
	}
	m := make(map[string][]string, len(lists)+8)
	for name, list := range lists {
		for _, o := range strings.Fields(list) {
			m[name] = append(m[name], "--"+o)
			if strings.HasPrefix(name, "git ") {
				m[name] = append(m[name], "--no-"+o)
			}
		}
	}
	for _, alias := range [][2]string{{"egrep", "grep"}, {"fgrep", "grep"}, {"zgrep", "grep"}, {"zegrep", "grep"}, {"zfgrep", "grep"},
		{"colordiff", "diff"}, {"gtar", "tar"}} {
		m[alias[0]] = m[alias[1]]
	}
	return m
})

// fullOption returns a long option of program as the program reads it:
// an abbreviation written out (--incl=*env is --include=*env), anything
// else as it is.
func fullOption(program, a string) string {
	if len(a) < 4 || a[0] != '-' || a[1] != '-' {
		return a
	}
	written, value, valued := strings.Cut(a, "=")
	full, ok := resolveLong(written, gnuLongs()[program])
	if !ok || full == written {
		return a // as written, or short for several (the program refuses it)
	}
	if valued {
		return full + "=" + value
	}
	return full
}

// fullOptions returns argv with its long options written out as program
// reads them (up to --), or argv itself when none is abbreviated.
func fullOptions(program string, argv []string) []string {
	out, copied := argv, false
	for i, a := range argv {
		if a == "--" {
			break
		}
		if full := fullOption(program, a); full != a {
			if !copied {
				out, copied = append([]string(nil), argv...), true
			}
			out[i] = full
		}
	}
	return out
}
