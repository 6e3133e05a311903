module foreigngo

go 1.19
