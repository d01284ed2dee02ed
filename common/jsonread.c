/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>

#include "jsonout.h"
#include "jsonread.h"
#include "util.h"
#include "common.h"

void jpath_init(struct jpath *p, const char *file)
{
	p->file = file;
	(void)snprintf(p->path, sizeof(p->path), "$");
}

struct jpath jpath_key(const struct jpath *p, const char *key)
{
	struct jpath c = { .file = p->file };

	if (snprintf(c.path, sizeof(c.path), "%s.%s", p->path, key) >= (int)sizeof(c.path))
		memcpy(c.path + sizeof(c.path) - 4, "...", 4);
	return c;
}

struct jpath jpath_index(const struct jpath *p, size_t i)
{
	struct jpath c = { .file = p->file };

	if (snprintf(c.path, sizeof(c.path), "%s[%zu]", p->path, i) >= (int)sizeof(c.path))
		memcpy(c.path + sizeof(c.path) - 4, "...", 4);
	return c;
}

int jpath_error(const struct jpath *p, struct s2c_error *err, const char *fmt, ...)
{
	char msg[S2C_ERROR_MAX];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return s2c_error_set(err, -EINVAL, "%s: %s: %s", p->file, p->path, msg);
}

/* 1-based line and column of byte @off. */
static void line_col(const char *text, size_t off, size_t *line, size_t *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

/*
 * json-c keeps the last of duplicate keys silently, but an input with two
 * values for one key is ambiguous.  json-c has checked the syntax, so outside
 * strings '{' opens an object, '[' an array, and ':' separates a key of the
 * innermost object from its value: counting the colons of each object, in the
 * order the objects open, gives the pairs the text has.  json-c keeps keys in
 * the order they first came, so a walk of the tree in the same order meets the
 * objects in the same order, up to the first one that lost a pair.
 */
struct dup_scan {
	size_t *pairs;          /* colons of each object, in the order they open */
	size_t n;               /* objects */
	size_t next;            /* the next object the walk of the tree meets */
};

static int count_colons(const char *text, size_t size, struct dup_scan *d)
{
	size_t stack[JSONREAD_MAX_DEPTH + 1], depth = 0, n = 0;
	bool in_str = false;

	for (size_t i = 0; i < size; i++)
		n += text[i] == '{';    /* at least the objects */
	d->pairs = calloc(n ? n : 1, sizeof(*d->pairs));
	if (!d->pairs)
		return -ENOMEM;
	for (size_t i = 0; i < size; i++) {
		char c = text[i];

		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = false;
		} else if (c == '"') {
			in_str = true;
		} else if ((c == '{' || c == '[') && depth <= JSONREAD_MAX_DEPTH) {
			stack[depth++] = c == '{' ? d->n++ : SIZE_MAX;
		} else if ((c == '}' || c == ']') && depth) {
			depth--;
		} else if (c == ':' && depth && stack[depth - 1] != SIZE_MAX) {
			d->pairs[stack[depth - 1]]++;
		}
	}
	return 0;
}

/* Where find_lost_pair() is: a key or an index below @up, the path written
 * out only for the message. */
struct dup_step {
	const struct dup_step *up;
	const char *key;        /* NULL: @index of an array */
	size_t index;
	const struct jpath *base; /* the top step's path; NULL: the document's */
};

static struct jpath dup_step_path(const struct dup_step *s, const char *file)
{
	struct jpath p;

	if (!s->up) {
		if (s->base)
			return *s->base;
		jpath_init(&p, file);
		return p;
	}
	p = dup_step_path(s->up, file);
	return s->key ? jpath_key(&p, s->key) : jpath_index(&p, s->index);
}

/* Name the first object at or below @o (at @s) with fewer pairs than its text: -EINVAL. */
static int find_lost_pair(struct json_object *o, const struct dup_step *s, struct dup_scan *d,
			  const char *file, struct s2c_error *err)
{
	int r = 0;

	if (json_object_is_type(o, json_type_object)) {
		size_t i = d->next++;
		if (i >= d->n || d->pairs[i] != (size_t)json_object_object_length(o)) {
			struct jpath p = dup_step_path(s, file);
			return jpath_error(&p, err, "an object has the same key twice");
		}
		json_object_object_foreach(o, key, val) {
			struct dup_step c = { .up = s, .key = key };
			if ((r = find_lost_pair(val, &c, d, file, err)) < 0)
				return r;
		}
	} else if (json_object_is_type(o, json_type_array)) {
		size_t len = json_object_array_length(o);
		for (size_t i = 0; i < len && r == 0; i++) {
			struct dup_step c = { .up = s, .index = i };
			r = find_lost_pair(json_object_array_get_idx(o, i), &c, d, file, err);
		}
	}
	return r;
}

/* @root parsed from the @size bytes at @text, found at @base (NULL: the document). */
static int check_duplicate_keys(const char *text, size_t size, struct json_object *root,
				const char *file, const struct jpath *base, struct s2c_error *err)
{
	struct dup_scan d = { 0 };
	struct dup_step top = { .base = base };
	int r = count_colons(text, size, &d);

	if (r == 0)
		r = find_lost_pair(root, &top, &d, file, err);
	if (r == 0 && d.next != d.n) {
		struct jpath p = dup_step_path(&top, file);
		r = jpath_error(&p, err, "an object has the same key twice");
	}
	free(d.pairs);
	return r;
}

/* What json-c lets through: NUL, overlong UTF-8 and raw control characters in strings. */
static int check_text(const char *text, size_t size, const char *file, struct s2c_error *err)
{
	size_t line, col;

	if (memchr(text, '\0', size))
		return s2c_error_set(err, -EINVAL, "%s: contains a NUL byte", file);
	if (utf8_invalid_offset(text, size) != size) {
		line_col(text, utf8_invalid_offset(text, size), &line, &col);
		return s2c_error_set(err, -EINVAL, "%s:%zu:%zu: not valid UTF-8", file, line, col);
	}
	for (size_t i = 0; i < size; i++)
		if ((unsigned char)text[i] < 0x20 && !strchr("\t\n\r", text[i])) {
			line_col(text, i, &line, &col);
			return s2c_error_set(err, -EINVAL, "%s:%zu:%zu: control character 0x%02x",
					     file, line, col, (unsigned char)text[i]);
		}
	return 0;
}

static void tokener_freep(struct json_tokener **t)
{
	if (*t)
		json_tokener_free(*t);
}

int jsonread_parse_mem(const char *text, size_t size, const char *file, struct json_object **ret,
		       struct s2c_error *err)
{
	_cleanup_(tokener_freep) struct json_tokener *tok = NULL;
	_cleanup_jsonput_ struct json_object *root = NULL;
	enum json_tokener_error jerr;
	size_t line, col;
	int r;

	if (size > JSONREAD_MAX_SIZE)
		return s2c_error_set(err, -EFBIG, "%s: larger than %u bytes", file, JSONREAD_MAX_SIZE);
	r = check_text(text, size, file, err);
	if (r < 0)
		return r;
	tok = json_tokener_new_ex(JSONREAD_MAX_DEPTH);
	if (!tok)
		return -ENOMEM;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	root = json_tokener_parse_ex(tok, text, (int)size);
	jerr = json_tokener_get_error(tok);
	if (!root && jerr == json_tokener_continue)
		return s2c_error_set(err, -EINVAL, "%s: not valid JSON: unexpected end of file", file);
	if (!root || jerr != json_tokener_success) {
		line_col(text, json_tokener_get_parse_end(tok), &line, &col);
		return s2c_error_set(err, -EINVAL, "%s:%zu:%zu: not valid JSON: %s", file, line, col,
				     json_tokener_error_desc(jerr));
	}
	for (size_t end = json_tokener_get_parse_end(tok); end < size; end++)
		if (!strchr(" \t\r\n", text[end])) {
			line_col(text, end, &line, &col);
			return s2c_error_set(err, -EINVAL, "%s:%zu:%zu: trailing data after the document",
					     file, line, col);
		}
	r = check_duplicate_keys(text, size, root, file, NULL, err);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(root);
	return 0;
}

int jsonread_slurp_max(int dirfd, const char *name, const char *display, size_t max,
		       char **ret_buf, size_t *ret_len, uint32_t *ret_uid, uint32_t *ret_mode,
		       struct s2c_error *err)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t off = 0;
	int r;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return s2c_error_errno(err, -errno, "cannot open '%s'", display);
	if (fstat(fd, &st) < 0)
		return s2c_error_errno(err, -errno, "cannot stat '%s'", display);
	if (!S_ISREG(st.st_mode))
		return s2c_error_set(err, -EINVAL, "'%s' is not a regular file", display);
	if ((uint64_t)st.st_size > max)
		return s2c_error_set(err, -EFBIG, "'%s' is larger than %zu bytes", display, max);
	r = read_all(fd, max, &buf, &off);
	if (r == -EFBIG)
		return s2c_error_set(err, -EFBIG, "'%s' is larger than %zu bytes", display, max);
	if (r < 0)
		return s2c_error_errno(err, r, "cannot read '%s'", display);
	if (ret_uid)
		*ret_uid = st.st_uid;
	if (ret_mode)
		*ret_mode = st.st_mode;
	*ret_len = off;
	*ret_buf = TAKE_PTR(buf);
	return 0;
}

int jsonread_slurp(int dirfd, const char *name, const char *display, char **ret_buf,
		   size_t *ret_len, uint32_t *ret_uid, uint32_t *ret_mode, struct s2c_error *err)
{
	return jsonread_slurp_max(dirfd, name, display, JSONREAD_MAX_SIZE, ret_buf, ret_len,
				  ret_uid, ret_mode, err);
}

int jsonread_parse_file(int dirfd, const char *name, const char *display,
			struct json_object **ret, uint32_t *ret_uid, uint32_t *ret_mode,
			struct s2c_error *err)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r = jsonread_slurp(dirfd, name, display, &buf, &len, ret_uid, ret_mode, err);

	if (r < 0)
		return r;
	return jsonread_parse_mem(buf, len, display, ret, err);
}

/* --- one array of the document at a time ------------------------------------------------- */

struct stream {
	const char *text, *file;
	size_t size, pos;
	struct s2c_error *err;
};

static void stream_ws(struct stream *st)
{
	while (st->pos < st->size && strchr(" \t\r\n", st->text[st->pos]))
		st->pos++;
}

static int stream_syntax(const struct stream *st, size_t off, const char *what)
{
	size_t line, col;

	if (off >= st->size)
		return s2c_error_set(st->err, -EINVAL, "%s: not valid JSON: unexpected end of file",
				     st->file);
	line_col(st->text, off, &line, &col);
	return s2c_error_set(st->err, -EINVAL, "%s:%zu:%zu: not valid JSON: %s", st->file, line, col,
			     what);
}

/* The character at the position after blanks, consumed when it is one of @want. */
static int stream_expect(struct stream *st, const char *want, char *ret)
{
	stream_ws(st);
	if (st->pos >= st->size || !strchr(want, st->text[st->pos]) || !st->text[st->pos])
		return stream_syntax(st, st->pos, "unexpected character");
	*ret = st->text[st->pos++];
	return 0;
}

/* One value at the position (a JSON null is NULL), found at @at, with @tok. */
static int stream_value(struct stream *st, struct json_tokener *tok, const struct jpath *at,
			struct json_object **ret)
{
	_cleanup_jsonput_ struct json_object *o = NULL;
	enum json_tokener_error jerr;
	size_t end;
	int r;

	stream_ws(st);
	json_tokener_reset(tok);
	o = json_tokener_parse_ex(tok, st->text + st->pos, (int)(st->size - st->pos));
	jerr = json_tokener_get_error(tok);
	end = st->pos + json_tokener_get_parse_end(tok);
	if (jerr == json_tokener_continue)
		return stream_syntax(st, st->size, NULL);
	if (jerr != json_tokener_success)
		return stream_syntax(st, end, json_tokener_error_desc(jerr));
	r = check_duplicate_keys(st->text + st->pos, end - st->pos, o, st->file, at, st->err);
	if (r < 0)
		return r;
	st->pos = end;
	*ret = TAKE_PTR(o);
	return 0;
}

static struct json_tokener *stream_tokener(int depth)
{
	struct json_tokener *tok = json_tokener_new_ex(depth);

	if (tok)
		json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8 |
					    JSON_TOKENER_ALLOW_TRAILING_CHARS);
	return tok;
}

/* The elements of the array at the position ('[' consumed), at @at, each to @element. */
static int stream_array(struct stream *st, const struct jpath *at,
			int (*element)(const struct jsonread_element *e, void *userdata),
			void *userdata)
{
	_cleanup_(tokener_freep) struct json_tokener *tok = stream_tokener(JSONREAD_MAX_DEPTH - 2);
	char c;
	int r;

	if (!tok)
		return -ENOMEM;
	stream_ws(st);
	if (st->pos < st->size && st->text[st->pos] == ']') {
		st->pos++;
		return 0;
	}
	for (size_t i = 0;; i++) {
		struct jpath ip = jpath_index(at, i);
		struct jsonread_element e = { .path = &ip, .index = i };

		stream_ws(st);
		e.offset = st->pos;
		r = stream_value(st, tok, &ip, &e.value);
		e.length = st->pos - e.offset;
		while (e.length && strchr(" \t\r\n", st->text[e.offset + e.length - 1]))
			e.length--;     /* json-c may have read a blank after the value */
		if (r == 0)
			r = element(&e, userdata);
		json_object_put(e.value);
		if (r == 0)
			r = stream_expect(st, ",]", &c);
		if (r < 0)
			return r;
		if (c == ']')
			return 0;
	}
}

int jsonread_parse_stream(const char *text, size_t size, size_t max, const char *file,
			  const char *key,
			  int (*element)(const struct jsonread_element *e, void *userdata),
			  void *userdata, struct json_object **ret, struct s2c_error *err)
{
	_cleanup_(tokener_freep) struct json_tokener *tok = NULL;
	_cleanup_jsonput_ struct json_object *doc = NULL;
	struct stream st = { .text = text, .file = file, .size = size, .err = err };
	struct jpath top;
	char c;
	int r;

	if (size > max)
		return s2c_error_set(err, -EFBIG, "%s: larger than %zu bytes", file, max);
	if (size > INT32_MAX)
		return s2c_error_set(err, -EFBIG, "%s: larger than %d bytes", file, INT32_MAX);
	r = check_text(text, size, file, err);
	if (r < 0)
		return r;
	stream_ws(&st);
	if (st.pos >= size || text[st.pos] != '{') {
		/* not an object: nothing to stream, and the whole parser's message */
		if (size > JSONREAD_MAX_SIZE)
			return stream_syntax(&st, st.pos, "expected an object");
		return jsonread_parse_mem(text, size, file, ret, err);
	}
	st.pos++;
	jpath_init(&top, file);
	tok = stream_tokener(JSONREAD_MAX_DEPTH - 1);
	doc = json_object_new_object();
	if (!tok || !doc)
		return -ENOMEM;
	stream_ws(&st);
	if (st.pos < size && text[st.pos] == '}')
		st.pos++;
	else
		for (c = ','; c == ',';) {
			_cleanup_jsonput_ struct json_object *k = NULL, *v = NULL;
			const char *name;
			struct jpath kp;

			stream_ws(&st);
			if (st.pos >= size || text[st.pos] != '"')
				return stream_syntax(&st, st.pos, "unexpected character");
			r = stream_value(&st, tok, &top, &k);
			if (r < 0)
				return r;
			name = json_object_get_string(k);
			kp = jpath_key(&top, name);
			if (json_object_object_get_ex(doc, name, NULL))
				return jpath_error(&top, err, "an object has the same key twice");
			r = stream_expect(&st, ":", &c);
			if (r < 0)
				return r;
			stream_ws(&st);
			if (s2c_streq(name, key) && st.pos < size && text[st.pos] == '[') {
				st.pos++;
				v = json_object_new_array();
				r = v ? stream_array(&st, &kp, element, userdata) : -ENOMEM;
			} else {
				r = stream_value(&st, tok, &kp, &v);
			}
			if (r < 0)
				return r;
			if (json_object_object_add(doc, name, TAKE_PTR(v)) < 0)
				return -ENOMEM;
			r = stream_expect(&st, ",}", &c);
			if (r < 0)
				return r;
		}
	stream_ws(&st);
	if (st.pos < size) {
		size_t line, col;

		line_col(text, st.pos, &line, &col);
		return s2c_error_set(err, -EINVAL, "%s:%zu:%zu: trailing data after the document",
				     file, line, col);
	}
	*ret = TAKE_PTR(doc);
	return 0;
}

int jsonread_keys(struct json_object *obj, const struct jpath *p, const char *const *allowed,
		  const char *const *required, struct s2c_error *err)
{
	if (!json_object_is_type(obj, json_type_object))
		return jpath_error(p, err, "expected an object");
	json_object_object_foreach(obj, key, val) {
		bool ok = false;
		(void)val;
		for (size_t i = 0; allowed && allowed[i]; i++)
			if (s2c_streq(allowed[i], key)) {
				ok = true;
				break;
			}
		if (!ok)
			return jpath_error(p, err, "unknown key '%s'", key);
	}
	for (size_t i = 0; required && required[i]; i++)
		if (!json_object_object_get_ex(obj, required[i], NULL))
			return jpath_error(p, err, "missing key '%s'", required[i]);
	return 0;
}

static int member(struct json_object *obj, const struct jpath *p, const char *key, bool required,
		  json_type type, const char *what, struct json_object **ret, struct s2c_error *err)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(obj, key, &v)) {
		if (required)
			return jpath_error(p, err, "missing key '%s'", key);
		*ret = NULL;
		return 0;
	}
	if (!json_object_is_type(v, type)) {
		struct jpath c = jpath_key(p, key);
		return jpath_error(&c, err, "expected %s", what);
	}
	*ret = v;
	return 1;
}

int jsonread_string(struct json_object *obj, const struct jpath *p, const char *key,
		    bool required, const char **ret, struct s2c_error *err)
{
	struct json_object *v = NULL;
	int r = member(obj, p, key, required, json_type_string, "a string", &v, err);

	if (r > 0)
		*ret = json_object_get_string(v);
	return r < 0 ? r : 0;
}

int jsonread_bool(struct json_object *obj, const struct jpath *p, const char *key, bool required,
		  bool *ret, struct s2c_error *err)
{
	struct json_object *v = NULL;
	int r = member(obj, p, key, required, json_type_boolean, "true or false", &v, err);

	if (r > 0)
		*ret = json_object_get_boolean(v);
	return r < 0 ? r : 0;
}

int jsonread_int(struct json_object *obj, const struct jpath *p, const char *key, bool required,
		 int64_t min, int64_t max, int64_t *ret, struct s2c_error *err)
{
	struct json_object *v = NULL;
	int r = member(obj, p, key, required, json_type_int, "an integer", &v, err);
	int64_t x;

	if (r <= 0)
		return r;
	errno = 0;
	x = json_object_get_int64(v);
	if (errno == ERANGE || x < min || x > max) {
		struct jpath c = jpath_key(p, key);
		return jpath_error(&c, err, "integer out of range %lld..%lld", (long long)min,
				   (long long)max);
	}
	*ret = x;
	return 0;
}

int jsonread_object(struct json_object *obj, const struct jpath *p, const char *key,
		    bool required, struct json_object **ret, struct s2c_error *err)
{
	int r = member(obj, p, key, required, json_type_object, "an object", ret, err);

	return r < 0 ? r : 0;
}

int jsonread_array(struct json_object *obj, const struct jpath *p, const char *key,
		   bool required, struct json_object **ret, struct s2c_error *err)
{
	int r = member(obj, p, key, required, json_type_array, "an array", ret, err);

	return r < 0 ? r : 0;
}

int jsonread_strdup(struct json_object *obj, const struct jpath *p, const char *key,
		    bool required, char **ret, struct s2c_error *err)
{
	struct json_object *v = NULL;

	*ret = NULL;
	if (!json_object_object_get_ex(obj, key, &v) || json_object_is_type(v, json_type_null)) {
		if (required)
			return jpath_error(p, err, "missing key '%s'", key);
		return 0;
	}
	if (!json_object_is_type(v, json_type_string)) {
		struct jpath c = jpath_key(p, key);
		return jpath_error(&c, err, "expected a string");
	}
	*ret = strdup(json_object_get_string(v));
	return *ret ? 0 : -ENOMEM;
}

struct json_object *jget(struct json_object *o, const char *key, int type)
{
	struct json_object *v;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, (json_type)type))
		return NULL;
	return v;
}

const char *jget_str(struct json_object *o, const char *key)
{
	struct json_object *v = jget(o, key, json_type_string);

	return v ? json_object_get_string(v) : NULL;
}

int jsonread_strv(struct json_object *obj, const struct jpath *p, const char *key, bool required,
		  size_t min_len, const char ***ret, size_t *ret_n, struct s2c_error *err)
{
	struct json_object *a = NULL;
	struct jpath kp = jpath_key(p, key);
	const char **v;
	size_t n;
	int r = member(obj, p, key, required, json_type_array, "an array of strings", &a, err);

	if (r <= 0) {
		if (r == 0) {
			*ret = NULL;
			if (ret_n)
				*ret_n = 0;
		}
		return r;
	}
	n = json_object_array_length(a);
	if (n < min_len)
		return jpath_error(&kp, err, "needs at least %zu element%s", min_len,
				   min_len == 1 ? "" : "s");
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(a, i);
		if (!json_object_is_type(e, json_type_string)) {
			struct jpath ip = jpath_index(&kp, i);
			free(v);
			return jpath_error(&ip, err, "expected a string");
		}
		v[i] = json_object_get_string(e);
	}
	*ret = v;
	if (ret_n)
		*ret_n = n;
	return 0;
}
