/* Messages to stderr in the one format users see: "gpusort: what: why". */
#ifndef GPUSORT_REPORT_H
#define GPUSORT_REPORT_H

/* "gpusort: <formatted>" and a newline. */
void report(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* "gpusort: <name>: <strerror(-error)>"; "-" is shown as "standard input". */
void report_file_error(const char *name, int error);
/* How messages name the output: its path, or "standard output" for NULL and "-". */
const char *report_output_name(const char *output);
/* "Try 'gpusort --help' for more information." */
void report_usage_hint(void);

#endif
