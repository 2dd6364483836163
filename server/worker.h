/*
 * worker — `attnjudge worker`, a judge host without HTTP (worker.c).
 */
#ifndef ATTNJUDGE_SERVER_WORKER_H
#define ATTNJUDGE_SERVER_WORKER_H

/* The command's main (argv[0] = "worker"); returns the exit status. */
int worker_main(int argc, char **argv);

#endif
