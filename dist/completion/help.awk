# SPDX-License-Identifier: GPL-2.0-or-later
#
# Reads the output of `suid2cap --help` or `suid2cap VERB --help` and prints
# what a shell completes, one item a line, fields separated by tabs:
#
#   verb NAME DESCRIPTION       a verb (from the list under "Verbs:")
#   opt  NAME KIND DESCRIPTION  an option; KIND is - (takes no value), dir,
#                               file, user, verb, enum:A,B,C or arg (a value
#                               nothing completes); the values of an enum come
#                               from the synopsis ("--format text|json") and
#                               from the lines of its description that list
#                               them two columns in ("  docker  the default ...")
#   sub  NAME                   a subcommand word of the synopsis (rules lint)
#   pos  KIND                   what the operands are: verb, command (the first
#                               operand is a program to run) or file
#
# Both completion scripts embed this program at build time, so they read the
# help of the very program they complete and cannot drift from it.  It must
# stay POSIX awk (mawk is the default awk of Debian) and hold no single quote.

function kind(a) {
	if (a ~ /^[a-z0-9][a-z0-9-]*([|][a-z0-9][a-z0-9-]*)+$/) {
		gsub(/[|]/, ",", a)
		return "enum:" a
	}
	if (a == "DIR")
		return "dir"
	if (a == "FILE" || a == "PLAN" || a == "PATH" || a == "JOURNAL" || a == "PROGRAM")
		return "file"
	if (a == "USER")
		return "user"
	if (a == "VERB")
		return "verb"
	if (a == "COMMAND")
		return "command"
	return "arg"
}

# Remember option o with kind k: a value beats none, a list of values beats
# a placeholder.
function note(o, k, d) {
	if (!(o in kinds)) {
		order[++n] = o
		kinds[o] = k
		descs[o] = d
		return
	}
	if (descs[o] == "")
		descs[o] = d
	if (k == "-")
		return
	if (kinds[o] == "-" || (kinds[o] == "arg" && k != "arg") || (k ~ /^enum:/ && kinds[o] !~ /^enum:/))
		kinds[o] = k
}

# Value v listed under option o in its description: o takes it, beside the
# values its synopsis gives.
function value(o, v) {
	if (("," extras[o] ",") ~ ("," v ","))
		return
	extras[o] = extras[o] == "" ? v : extras[o] "," v
}

# Every option mentioned in line s, with the value that follows it.
function options(s, d,    o, a, k, pair) {
	pair = ""
	while (match(s, /(^|[^A-Za-z0-9_-])--?[A-Za-z][A-Za-z0-9-]*/)) {
		o = substr(s, RSTART, RLENGTH)
		sub(/^[^-]+/, "", o)
		s = substr(s, RSTART + RLENGTH)
		k = "-"
		if (match(s, /^[ =][A-Z][A-Z_]*([],.| ]|$)/) ||
		    match(s, /^[ =][a-z0-9][a-z0-9-]*([|][a-z0-9][a-z0-9-]*)+([],. ]|$)/)) {
			a = substr(s, 2, RLENGTH - 1)
			sub(/[],.| ]$/, "", a)
			k = kind(a)
			s = substr(s, 1 + length(a) + 1)
		}
		note(o, k, d)
		if (k != "-")
			valued = o
		if (pair != "") {
			note(pair, k, d)
			pair = ""
		}
		# "-o, --output FILE": the short form takes what the long one takes
		if (o !~ /^--/ && s ~ /^, --?[A-Za-z]/)
			pair = o
	}
}

# Is synopsis word p an option that takes the next word as its value?
function takes(p) {
	return p ~ /^[[]?-/ && p !~ /[]]$/
}

# The synopsis after "usage: suid2cap [VERB]": subcommand words and operands.
function synopsis(s,    i, m, t, depth, prev, c) {
	m = split(s, t, " ")
	depth = 0
	prev = ""
	for (i = 1; i <= m; i++) {
		c = t[i]
		if (depth == 0 && c ~ /^[a-z][a-z-]*$/ && !takes(prev))
			subs[++nsubs] = c
		gsub(/[][]/, "", c)
		if (c == "VERB" && !takes(prev))
			pos = "verb"
		else if (c == "COMMAND" && !takes(prev))
			pos = "command"
		else if (pos == "" && kind(c) ~ /^(file|dir)$/ && !takes(prev))
			pos = "file"
		depth += gsub(/\[/, "[", t[i]) - gsub(/\]/, "]", t[i])
		prev = t[i]
	}
}

BEGIN {
	# the columns of --help: descriptions at 24, the values they list at 26
	desccol = "                        "
	valuecol = desccol "  "
	valued = ""
	n = 0
	nsubs = 0
	pos = ""
	inverbs = 0
	insyn = 0
	syn = ""
}

# The synopsis: "usage: suid2cap [VERB] ..." and the indented lines that
# continue it, up to the first empty line.
/^usage: / {
	syn = $0
	sub(/^usage: +[^ ]+ */, "", syn)
	if (verb != "")
		sub(/^[^ ]+ */, "", syn)
	insyn = 1
	next
}

insyn && /^ +[^ ]/ {
	s = $0
	sub(/^ +/, "", s)
	syn = syn " " s
	next
}

insyn {
	options(syn, "")
	synopsis(syn)
	insyn = 0
}

/^Verbs:/ {
	inverbs = 1
	next
}

inverbs && /^ +[a-z][a-z-]* / {
	s = $0
	sub(/^ +/, "", s)
	name = s
	sub(/ .*/, "", name)
	sub(/^[^ ]+ +/, "", s)
	print "verb\t" name "\t" s
	next
}

inverbs && !/^ / {
	inverbs = 0
}

/^ +-/ {
	# an option line: its description after the first gap of two spaces
	s = $0
	sub(/^ +/, "", s)
	d = ""
	if (match(s, /   *[^ ]/))
		d = substr(s, RSTART + RLENGTH - 1)
	valued = ""
	options(s, d)
	next
}

# A value of the option above, listed in its description two columns in
# ("  docker  its default"): the word, then at least two blanks.
valued != "" && index($0, valuecol) == 1 && substr($0, length(valuecol) + 1) ~ /^[A-Za-z0-9][A-Za-z0-9_-]*  / {
	s = substr($0, length(valuecol) + 1)
	sub(/ .*/, "", s)
	value(valued, s)
	next
}

# The description goes on at its column; anything else ends the option.
valued != "" && index($0, desccol) != 1 {
	valued = ""
}

{
	options($0, "")
}

END {
	if (insyn) {
		options(syn, "")
		synopsis(syn)
	}
	for (i = 1; i <= n; i++) {
		o = order[i]
		if (extras[o] != "" && kinds[o] ~ /^enum:/) {
			m = split(extras[o], vs, ",")
			for (j = 1; j <= m; j++)
				if (("," substr(kinds[o], 6) ",") !~ ("," vs[j] ","))
					kinds[o] = kinds[o] "," vs[j]
		} else if (extras[o] != "") {
			kinds[o] = "enum:" extras[o]
		}
		print "opt\t" o "\t" kinds[o] "\t" descs[o]
	}
	for (i = 1; i <= nsubs; i++)
		print "sub\t" subs[i]
	if (pos != "")
		print "pos\t" pos
}
