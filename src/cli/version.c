/* SPDX-License-Identifier: MIT */
/* --version, laid out as coreutils' --version: name and version, copyright, the
 * licence (MIT, as LICENSE, the man pages and README state), warranty, authors. */
#include "config.h"
#include <stdio.h>
#include <gpusort.h>
#include "help.h"

void version_print(void)
{
	printf("gpusort (gpusort) %s\n"
	       "Copyright (C) 2026 the gpusort authors.\n"
	       "License MIT: <https://opensource.org/licenses/MIT>.\n"
	       "This is free software: you are free to change and redistribute it.\n"
	       "There is NO WARRANTY, to the extent permitted by law.\n"
	       "\n"
	       "Written by the gpusort authors.\n",
	       gpusort_version_string());
}
