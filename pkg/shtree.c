/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The syntax tree of a shell script as the parser builds it: new nodes, kids,
 * word lists and parts, each counted against the budget, and freeing.
 */
#include <errno.h>
#include <stdlib.h>

#include "shlex.h"
#include "shtree.h"
#include "util.h"
#include "common.h"

void shtree_word_release(struct sh_word *w)
{
	for (size_t i = 0; i < w->n; i++) {
		struct sh_part *p = &w->parts[i];
		free(p->text);
		if (p->arg) {
			shtree_word_release(p->arg);
			free(p->arg);
		}
		shtree_node_free(p->sub);
	}
	free(w->parts);
	*w = (struct sh_word){ 0 };
}

void shtree_node_free(struct sh_node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n_kids; i++)
		shtree_node_free(n->kids[i]);
	free(n->kids);
	for (size_t i = 0; i < n->n_assigns; i++) {
		free(n->assigns[i].name);
		shtree_word_release(&n->assigns[i].value);
	}
	free(n->assigns);
	for (size_t i = 0; i < n->n_words; i++)
		shtree_word_release(&n->words[i]);
	free(n->words);
	free(n->name);
	if (n->word) {
		shtree_word_release(n->word);
		free(n->word);
	}
	for (size_t i = 0; i < n->n_arms; i++) {
		for (size_t j = 0; j < n->arms[i].n_patterns; j++)
			shtree_word_release(&n->arms[i].patterns[j]);
		free(n->arms[i].patterns);
		shtree_node_free(n->arms[i].body);
	}
	free(n->arms);
	for (size_t i = 0; i < n->n_redirs; i++) {
		shtree_word_release(&n->redirs[i].target);
		free(n->redirs[i].heredoc);
	}
	free(n->redirs);
	free(n);
}

int shtree_part_add(struct shlex *p, struct sh_word *w, struct sh_part **ret)
{
	struct sh_part *v;

	if (shlex_count_node(p) < 0)
		return -EINVAL;
	v = realloc(w->parts, (w->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	w->parts = v;
	v[w->n] = (struct sh_part){ 0 };
	*ret = &v[w->n++];
	return 0;
}

/* The word's text when it is one unquoted literal, else NULL. */
const char *shtree_plain(const struct sh_word *w)
{
	return w->n == 1 && w->parts[0].kind == SH_PART_LIT && !w->parts[0].quoted ?
		w->parts[0].text : NULL;
}

int shtree_node_new(struct shlex *p, enum sh_kind kind, struct sh_node **ret)
{
	struct sh_node *n;

	if (shlex_count_node(p) < 0)
		return -EINVAL;
	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->kind = kind;
	n->line = n->line_end = p->line;
	*ret = n;
	return 0;
}

int shtree_kid_add(struct sh_node *n, struct sh_node *kid)
{
	/* grown by doubling: a list of many commands is not copied once per command */
	if (S2C_ARRAY_RESERVE(n->kids, n->alloc_kids, n->n_kids + 1, 4) < 0) {
		shtree_node_free(kid);
		return -ENOMEM;
	}
	n->kids[n->n_kids++] = kid;
	return 0;
}

int shtree_words_add(struct sh_word **v, size_t *n, struct sh_word *w)
{
	struct sh_word *nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (!nv) {
		shtree_word_release(w);
		return -ENOMEM;
	}
	*v = nv;
	nv[(*n)++] = *w;
	*w = (struct sh_word){ 0 };
	return 0;
}
