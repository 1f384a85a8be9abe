#pragma nv_diag_suppress 177
