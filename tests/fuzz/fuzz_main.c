/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Corpus replay: runs a fuzz target over every file of the directories (or
 * files) given, so the corpus is exercised by plain ctest without libFuzzer
 * (after systemd's fuzz-main.c).  Exits 1 when a path cannot be read.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long len;

	if (!f) {
		fprintf(stderr, "cannot open '%s': %s\n", path, strerror(errno));
		return -1;
	}
	if (fseek(f, 0, SEEK_END) < 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0) {
		fclose(f);
		return -1;
	}
	buf = malloc(len ? (size_t)len : 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	(void)LLVMFuzzerTestOneInput(buf, (size_t)len);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	size_t n = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *de;

		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "cannot stat '%s': %s\n", argv[i], strerror(errno));
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (run_file(argv[i]) < 0)
				return 1;
			n++;
			continue;
		}
		d = opendir(argv[i]);
		if (!d)
			return 1;
		while ((de = readdir(d))) {
			char path[4096];
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], de->d_name);
			if (run_file(path) < 0) {
				closedir(d);
				return 1;
			}
			n++;
		}
		closedir(d);
	}
	printf("replayed %zu inputs\n", n);
	return n ? 0 : 1;
}
