// Formatted wrongly on purpose: check_format.py must refuse it.
int  answer( ){return 42;}
