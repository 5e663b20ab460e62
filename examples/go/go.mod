module example.com/roles

go 1.22
