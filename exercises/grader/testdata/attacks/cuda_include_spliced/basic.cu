// a kernel
/* x */ %:inc\
lude "/etc/hostname"
