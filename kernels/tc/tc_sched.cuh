/* The order in which the engine's persistent CTAs take output tiles: groups
 * of `group_m` row tiles per column tile, so that CTAs running at the same
 * time share B's column tile and the group's rows of A stay in L2. */
#ifndef MPB_TC_SCHED_CUH
#define MPB_TC_SCHED_CUH

/* Tile (tm, tn) of linear index b over tiles_m x tiles_n tiles. */
__device__ static inline void tc_tile_of(int b, int tiles_m, int tiles_n, int group_m, int *tm, int *tn)
{
    const int per_group = group_m * tiles_n;
    const int group = b / per_group, first_m = group * group_m;
    const int size_m = tiles_m - first_m < group_m ? tiles_m - first_m : group_m;
    const int in_group = b % per_group;
    *tm = first_m + in_group % size_m;
    *tn = in_group / size_m;
}

#endif
