/* SPDX-License-Identifier: MIT */
/* gpusort's modules (module_open.h): dlopen by path, then the symbol by name. */
#include "config.h"
#include <dlfcn.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "module_open.h"

/* The module of the build tree this program was built in: .libs/FILE beside it. */
static void *open_beside_program(const char *file)
{
	char program[PATH_MAX], path[PATH_MAX + 64];
	ssize_t length = readlink("/proc/self/exe", program, sizeof program - 1);
	if (length <= 0)
		return NULL;
	program[length] = '\0';
	char *slash = strrchr(program, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	snprintf(path, sizeof path, "%s/.libs/%s", program, file);
	return dlopen(path, RTLD_NOW | RTLD_GLOBAL);
}

void *module_open(const char *chosen, const char *installed, const char *file, const char *symbol, char *why,
		  size_t why_size)
{
	bool given = chosen && *chosen;
	const char *path = given ? chosen : installed;
	void *module = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	snprintf(why, why_size, "%s", module ? "" : dlerror());
	if (!module && !given)
		module = open_beside_program(file);
	if (!module)
		return NULL;
	void *found = dlsym(module, symbol);
	if (!found)
		snprintf(why, why_size, "%s: not this gpusort's", given ? chosen : file);
	return found;
}
