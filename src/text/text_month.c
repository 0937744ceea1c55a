/* -M: the three-letter abbreviation decides; what follows it does not matter. */
#include "text_month.h"

#include <string.h>
#include "text_fields.h"

int text_month(const char *key, size_t len)
{
	static const char names[12][4] = { "JAN", "FEB", "MAR", "APR", "MAY", "JUN",
					   "JUL", "AUG", "SEP", "OCT", "NOV", "DEC" };
	const char *end = key + len;
	while (key < end && text_is_blank(*key))
		key++;
	if (end - key < 3)
		return 0;
	char upper[3];
	for (int i = 0; i < 3; i++)
		upper[i] = (char)((key[i] >= 'a' && key[i] <= 'z') ? key[i] - 32 : key[i]);
	for (int m = 0; m < 12; m++)
		if (memcmp(upper, names[m], 3) == 0)
			return m + 1;
	return 0;
}
