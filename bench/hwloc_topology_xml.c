/* Writes this machine's hwloc topology to an XML file, with the PCI and OS devices
 * that Open MPI keeps, so that mpirun can read it (--mca hwloc_base_topo_file FILE)
 * instead of scanning the machine at every start (bench/multi_gpu_floor.sh).
 * Usage: hwloc_topology_xml FILE    (cc -O2 -o hwloc_topology_xml hwloc_topology_xml.c -lhwloc) */
#include <hwloc.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE\n", argv[0]);
		return 2;
	}
	hwloc_topology_t topology;
	if (hwloc_topology_init(&topology) != 0) {
		perror("hwloc_topology_init");
		return 1;
	}
	hwloc_topology_set_io_types_filter(topology, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
	int status = 0;
	if (hwloc_topology_load(topology) != 0) {
		perror("hwloc_topology_load");
		status = 1;
	} else if (hwloc_topology_export_xml(topology, argv[1], 0) != 0) {
		perror(argv[1]);
		status = 1;
	}
	hwloc_topology_destroy(topology);
	return status;
}
