import sys
sys.stderr.write("the user's sitecustomize ran\n")
